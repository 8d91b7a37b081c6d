/**
 * `npx tsx test/mutation/table.ts [--check]`: writes the mutation table of docs/testing.md from
 * test/mutation/results.json (run.ts does this after every run); with --check, only says whether
 * the docs are up to date (exit code 1 when not).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DOC_PATH, RESULTS_PATH, renderTable, replaceTable, type ResultsFile } from './results.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

export function readResults(root = ROOT): ResultsFile {
  return JSON.parse(readFileSync(join(root, RESULTS_PATH), 'utf8')) as ResultsFile;
}

/** Regenerates the docs table; true when the file changed. */
export function writeTable(root = ROOT): boolean {
  const path = join(root, DOC_PATH);
  const before = readFileSync(path, 'utf8');
  const after = replaceTable(before, renderTable(readResults(root).results));
  if (after !== before) writeFileSync(path, after);
  return after !== before;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--check')) {
    const doc = readFileSync(join(ROOT, DOC_PATH), 'utf8');
    const fresh = replaceTable(doc, renderTable(readResults().results)) === doc;
    console.log(fresh ? `${DOC_PATH}: mutation table up to date` : `${DOC_PATH}: mutation table differs from ${RESULTS_PATH}; run npx tsx test/mutation/table.ts`);
    process.exitCode = fresh ? 0 : 1;
  } else {
    console.log(writeTable() ? `${DOC_PATH}: mutation table rewritten from ${RESULTS_PATH}` : `${DOC_PATH}: mutation table already up to date`);
  }
}
