/**
 * The mutation scores of docs/testing.md, kept as data (issue 29 item 12): test/mutation/run.ts
 * records each file's last result in test/mutation/results.json, and the table in the docs is
 * generated from it (`npx tsx test/mutation/table.ts`), so the two cannot drift
 * (test/mutation/results.test.ts compares them). Pure: no file system here.
 */

export const RESULTS_PATH = 'test/mutation/results.json';
export const DOC_PATH = 'docs/testing.md';
export const TABLE_START = '<!-- mutation-table:start: generated from test/mutation/results.json by `npx tsx test/mutation/table.ts`; edit the JSON, not this table -->';
export const TABLE_END = '<!-- mutation-table:end -->';

export interface FileResult {
  /** Relative to the repository root. */
  file: string;
  mutants: number;
  /** Killed or timed out; null in rows carried over from the hand-kept table, which gave percentages only. */
  killed: number | null;
  /** Survived or not covered, equivalents included. */
  survived: number | null;
  /** Survivors listed in equivalent-mutants.json. */
  equivalent: number | null;
  /** Static mutants skipped by --ignore-static (not counted). */
  ignored?: number;
  /** Percentages, one decimal. */
  raw: number;
  score: number;
  verdict: 'pass' | 'FAIL';
  /** YYYY-MM-DD of the run (of the commit that recorded it, for carried-over rows). */
  date: string;
  seconds: number | null;
  /** The --spec globs of the run, when it did not use those of targets.ts. */
  spec?: string[];
  ignoreStatic?: boolean;
  /** The raw score of the file's first run, before the tests its survivors asked for: kept across runs. */
  firstRaw?: string;
  /** Free text about this run; dropped when the file is run again. */
  note?: string;
}

export interface ResultsFile {
  $comment?: string;
  results: FileResult[];
}

/** Replaces the file's row (keeping its first raw score) or appends one. */
export function recordResult(doc: ResultsFile, result: FileResult): ResultsFile {
  const index = doc.results.findIndex((r) => r.file === result.file);
  if (index < 0) return { ...doc, results: [...doc.results, { ...result, firstRaw: result.firstRaw ?? `${result.raw.toFixed(1)}%` }] };
  const firstRaw = doc.results[index]!.firstRaw ?? result.firstRaw;
  const results = [...doc.results];
  results[index] = firstRaw === undefined ? result : { ...result, firstRaw };
  return { ...doc, results };
}

/** `packages/core/src/auth/tokens.ts` → `auth/tokens.ts`; a plugin keeps its package name. */
export function shortName(file: string): string {
  return file.replace(/^packages\/core\/src\//, '').replace(/^packages\//, '');
}

const count = (n: number | null | undefined): string => (n === null || n === undefined ? '–' : String(n));
const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function renderTable(results: readonly FileResult[]): string {
  const rows = results.map((r) => {
    const run = [
      r.date,
      r.seconds === null ? '' : `, ${Math.round(r.seconds)} s`,
      r.spec === undefined ? '' : ` (\`--spec ${r.spec.join(',')}\`)`,
      r.ignoreStatic === true ? ` (\`--ignore-static\`: ${count(r.ignored)} static mutants skipped)` : '',
      r.note === undefined ? '' : `; ${r.note}`,
    ].join('');
    return `| \`${shortName(r.file)}\` | ${r.mutants} | ${count(r.killed)} | ${count(r.survived)} | ${count(r.equivalent)} | ${r.firstRaw ?? '–'} | ${r.raw.toFixed(1)}% | ${r.score.toFixed(1)}% | ${r.verdict} | ${cell(run)} |`;
  });
  return [
    '| file | mutants | killed | survived | equivalent | first raw | raw | score | verdict | last run |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

/** `doc` with the text between the table markers replaced by `table`. */
export function replaceTable(doc: string, table: string): string {
  const start = doc.indexOf(TABLE_START);
  const end = doc.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`${DOC_PATH} lacks the markers ${TABLE_START} … ${TABLE_END}`);
  return `${doc.slice(0, start + TABLE_START.length)}\n${table}\n${doc.slice(end)}`;
}

/** The table currently between the markers of `doc`, or undefined without markers. */
export function tableIn(doc: string): string | undefined {
  const start = doc.indexOf(TABLE_START);
  const end = doc.indexOf(TABLE_END);
  if (start < 0 || end < start) return undefined;
  return doc.slice(start + TABLE_START.length, end).trim();
}
