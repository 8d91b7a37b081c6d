import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { DOC_PATH, RESULTS_PATH, TABLE_END, TABLE_START, recordResult, renderTable, replaceTable, shortName, tableIn, type FileResult, type ResultsFile } from './results.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

const row = (fields: Partial<FileResult>): FileResult => ({
  file: 'packages/relay-admission/src/admission.ts', mutants: 82, killed: 79, survived: 3, equivalent: 3,
  raw: 96.3, score: 100, verdict: 'pass', date: '2026-11-26', seconds: 87, ...fields,
});

describe('mutation: the results table of docs/testing.md', () => {
  it('the table in docs/testing.md is the one results.json gives (regenerate: npx tsx test/mutation/table.ts)', () => {
    const doc = readFileSync(join(ROOT, DOC_PATH), 'utf8');
    const { results } = JSON.parse(readFileSync(join(ROOT, RESULTS_PATH), 'utf8')) as ResultsFile;
    expect(tableIn(doc), 'markers missing').to.not.equal(undefined);
    expect(tableIn(doc)).to.equal(renderTable(results));
  });

  it('every row of results.json names a file that exists, once', () => {
    const { results } = JSON.parse(readFileSync(join(ROOT, RESULTS_PATH), 'utf8')) as ResultsFile;
    const files = results.map((r) => r.file);
    expect(new Set(files).size).to.equal(files.length);
    for (const file of files) expect(() => readFileSync(join(ROOT, file)), file).to.not.throw();
  });

  it('renders one row per file: counts, percentages with one decimal, the run and its options', () => {
    const table = renderTable([
      row({}),
      row({ file: 'packages/core/src/auth/tokens.ts', killed: null, survived: null, equivalent: null, raw: 97.8, score: 100, seconds: null, firstRaw: '84.4%', spec: ['test/core/auth/*.test.ts'], note: 'a | b' }),
      row({ file: 'packages/core/src/identity/routes.ts', ignoreStatic: true, ignored: 1, verdict: 'FAIL', score: 88.25 }),
    ]).split('\n');
    expect(table).to.have.length(5);
    expect(table[2]).to.equal('| `relay-admission/src/admission.ts` | 82 | 79 | 3 | 3 | – | 96.3% | 100.0% | pass | 2026-11-26, 87 s |');
    expect(table[3]).to.equal('| `auth/tokens.ts` | 82 | – | – | – | 84.4% | 97.8% | 100.0% | pass | 2026-11-26 (`--spec test/core/auth/*.test.ts`); a \\| b |');
    expect(table[4]).to.equal('| `identity/routes.ts` | 82 | 79 | 3 | 3 | – | 96.3% | 88.3% | FAIL | 2026-11-26, 87 s (`--ignore-static`: 1 static mutants skipped) |');
  });

  it('a new run replaces the row of its file and keeps its first raw score; a new file is appended with its own', () => {
    const doc: ResultsFile = { results: [row({ firstRaw: '76.8%', note: 'old note' }), row({ file: 'packages/x.ts' })] };
    const replaced = recordResult(doc, row({ mutants: 80, raw: 97.5 }));
    expect(replaced.results.map((r) => r.file)).to.deep.equal(['packages/relay-admission/src/admission.ts', 'packages/x.ts']);
    expect(replaced.results[0]).to.deep.equal(row({ mutants: 80, raw: 97.5, firstRaw: '76.8%' }));
    const appended = recordResult(doc, row({ file: 'packages/y.ts', raw: 91.25 }));
    expect(appended.results[2]).to.deep.include({ file: 'packages/y.ts', firstRaw: '91.3%' });
    expect(doc.results).to.have.length(2); // not mutated
  });

  it('replaces only the text between the markers, and refuses a document without them', () => {
    const doc = `intro\n${TABLE_START}\nold table\n${TABLE_END}\noutro\n`;
    expect(replaceTable(doc, '| new |')).to.equal(`intro\n${TABLE_START}\n| new |\n${TABLE_END}\noutro\n`);
    expect(() => replaceTable('no markers', '| new |')).to.throw(/lacks the markers/);
    expect(shortName('packages/core/src/auth/tokens.ts')).to.equal('auth/tokens.ts');
    expect(shortName('packages/tips/src/service.ts')).to.equal('tips/src/service.ts');
  });
});
