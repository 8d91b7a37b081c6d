import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from '../harness/index.js';
import { blocksOf } from './doc-blocks.js';

/** A doc under docs/, as its reader reads it. */
export const readDoc = (name: string) => readFileSync(join(REPO_ROOT, 'docs', name), 'utf8');

/** docs/wallet-integration.md as the wallet developer reads it. */
export const integrationDoc = readDoc('wallet-integration.md');

/** The one fenced block of `language` in `doc` that contains `marker`, verbatim. */
export function fencedBlockIn(doc: string, marker: string, language = ''): string {
  const blocks = blocksOf('', doc).filter((block) => block.lang === language && block.body.includes(marker));
  if (blocks.length !== 1) throw new Error(`expected one \`\`\`${language} block with ${marker}, found ${blocks.length}`);
  // Verbatim: the body up to the closing fence, its last newline included.
  return `${blocks[0]!.body}\n`;
}

/** The one fenced block of `language` in docs/wallet-integration.md that contains `marker`. */
export const fencedBlock = (marker: string, language = '') => fencedBlockIn(integrationDoc, marker, language);

/** Writes `source` as a module in a temporary directory whose `node_modules` is this repository's, so its bare imports resolve as in a wallet's project. */
function snippetFile(source: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'doc-snippet-'));
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  const file = join(dir, 'snippet.mjs');
  writeFileSync(file, source);
  return file;
}

/** Loads a JavaScript snippet of the doc as a module, exactly as printed, exporting `names`. */
export async function loadSnippet<T>(code: string, names: string[]): Promise<T> {
  return (await import(pathToFileURL(snippetFile(`${code}\nexport { ${names.join(', ')} };\n`)).href)) as T;
}

/**
 * Runs a snippet in a plain `node` (no tsx, no `wallet-source` export condition, as in a wallet's own
 * project), followed by `driver`, which prints its findings as one JSON value on stdout.
 */
export function runSnippet<T>(code: string, driver: string): T {
  const { NODE_OPTIONS: _ignored, ...env } = process.env;
  return JSON.parse(execFileSync(process.execPath, [snippetFile(`${code}\n${driver}\n`)], { env, encoding: 'utf8' })) as T;
}
