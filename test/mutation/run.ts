/**
 * `npm run test:mutation [-- options] [files…]`: StrykerJS on the security-critical files, one
 * Stryker run per file, and a verdict per file (issue 13 item 10). See docs/testing.md.
 *
 *   --mutate <file>[,<file>…]  files to mutate (also as plain arguments); default: every file
 *                              of targets.ts. A file outside targets.ts needs --spec.
 *   --since <git-ref>          only the files of targets.ts changed since <git-ref> (for CI)
 *   --spec <glob>[,<glob>…]    spec files to load instead of the ones targets.ts lists
 *   --summary <file>           where to write the summary (default reports/mutation/summary.md;
 *                              give two runs side by side each their own)
 *   --ignore-static            skip static mutants (module-level code: each needs a fresh
 *                              process and every spec of the target); reported as ignored
 *   --concurrency <n>          Stryker test runners (default 1: the machine is shared)
 *   --threshold <n>            minimum score per file, in percent (default 90)
 *   --no-record                do not write the results to test/mutation/results.json and the
 *                              table of docs/testing.md (a trial run)
 *
 * A file passes when its score, after taking out the survivors listed in
 * equivalent-mutants.json, is at least the threshold; an entry of that list that matches no
 * mutant, several, or a killed one fails the file with a message saying how to re-pin it
 * (test/mutation/equivalents.ts). Each file's result replaces its row in
 * test/mutation/results.json, from which the table of docs/testing.md is regenerated. Exit code 1 when any file fails, when a
 * run breaks, or when the tests did not load the mutated copy at all.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeMutant, matchEquivalents, type Equivalent, type ReportMutant } from './equivalents.js';
import { RESULTS_PATH, recordResult, type FileResult, type ResultsFile } from './results.js';
import { writeTable } from './table.js';
import { SKIPPED, TARGETS } from './targets.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const REPORTS = join(ROOT, 'reports', 'mutation');
const STRYKER = join(ROOT, 'node_modules', '@stryker-mutator', 'core', 'bin', 'stryker.js');
const EQUIVALENTS_FILE = join(ROOT, 'test', 'mutation', 'equivalent-mutants.json');
/** Stryker's instrumentation marker: never in a source file of the checkout. */
const MARKER = 'stryMutAct_9fa48';

interface Report { files: Record<string, { source: string; mutants: ReportMutant[] }> }
interface Result {
  file: string;
  mutants: number;
  killed: number;
  timeout: number;
  survived: number;
  noCoverage: number;
  errors: number;
  ignored: number;
  equivalent: number;
  raw: number;
  score: number;
  seconds: number;
  survivors: string[];
  problems: string[];
  notes: string[];
}

function fail(message: string): never {
  console.error(`test:mutation: ${message}`);
  process.exit(1);
}

function parseArgs(argv: string[]): { files: string[]; since?: string; spec?: string[]; summary?: string; concurrency: number; threshold: number; ignoreStatic: boolean; record: boolean } {
  const files: string[] = [];
  let since: string | undefined;
  let summary: string | undefined;
  let spec: string[] | undefined;
  let concurrency = 1;
  let ignoreStatic = false;
  let record = true;
  let threshold = 90;
  const list = (value: string | undefined, flag: string): string[] => {
    if (value === undefined || value.startsWith('--')) fail(`${flag} needs a value`);
    return value.split(',').map((item) => item.trim()).filter(Boolean);
  };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    if (arg === '--mutate' || arg === '-m') files.push(...list(argv[++i], arg));
    else if (arg === '--spec') spec = list(argv[++i], arg);
    else if (arg === '--since') since = list(argv[++i], arg)[0];
    else if (arg === '--summary') summary = list(argv[++i], arg)[0];
    else if (arg === '--ignore-static') ignoreStatic = true;
    else if (arg === '--no-record') record = false;
    else if (arg === '--concurrency') concurrency = Number(argv[++i]);
    else if (arg === '--threshold') threshold = Number(argv[++i]);
    else if (arg.startsWith('--')) fail(`unknown option ${arg}`);
    else files.push(...list(arg, 'file'));
  }
  if (!Number.isInteger(concurrency) || concurrency < 1) fail('--concurrency must be a positive integer');
  if (!Number.isFinite(threshold) || threshold < 0 || threshold > 100) fail('--threshold must be 0..100');
  if (since !== undefined && files.length > 0) fail('--since picks the files itself: give no files with it');
  return { files, since, spec, summary, concurrency, threshold, ignoreStatic, record };
}

/** `dir/*.ts` or a plain path, relative to the root; only the last segment may hold a `*`. */
function expand(pattern: string): string[] {
  if (!pattern.includes('*')) return [pattern];
  const dir = dirname(pattern);
  const name = new RegExp(`^${basename(pattern).split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*')}$`);
  return readdirSync(join(ROOT, dir)).filter((entry) => name.test(entry)).map((entry) => `${dir}/${entry}`).sort();
}

function matches(file: string, pattern: string): boolean {
  return expand(pattern).includes(file);
}

function normalise(path: string): string {
  return relative(ROOT, resolve(process.cwd(), path)).split('\\').join('/');
}

/** Source files of packages/ that still carry Stryker's instrumentation (an in-place run gone wrong). */
function instrumentedFiles(): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name === 'dist') continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.[cm]?[jt]s$/.test(entry.name) && readFileSync(path, 'utf8').includes(MARKER)) found.push(relative(ROOT, path));
    }
  };
  walk(join(ROOT, 'packages'));
  return found;
}

function checkClean(when: string): void {
  const dirty = instrumentedFiles();
  if (dirty.length > 0) {
    fail(`${when}: these files hold Stryker-instrumented code: ${dirty.join(', ')}. Restore them (git diff / git checkout -- <file>, or the backup Stryker names in .stryker-tmp/) before going on.`);
  }
}

function loadEquivalents(): Equivalent[] {
  if (!existsSync(EQUIVALENTS_FILE)) return [];
  const parsed = JSON.parse(readFileSync(EQUIVALENTS_FILE, 'utf8')) as { mutants?: Equivalent[] };
  return parsed.mutants ?? [];
}

function summarise(file: string, report: Report, equivalents: Equivalent[], seconds: number): Result {
  const entry = report.files[file];
  const result: Result = {
    file, mutants: 0, killed: 0, timeout: 0, survived: 0, noCoverage: 0, errors: 0, ignored: 0, equivalent: 0,
    raw: 0, score: 0, seconds, survivors: [], problems: [], notes: [],
  };
  if (entry === undefined) {
    result.problems.push('not in the report (no mutants, or the path is wrong)');
    return result;
  }
  const mutants = entry.mutants;
  const matching = matchEquivalents(file, entry.source, mutants, equivalents);
  const equivalentIds = matching.ids;
  result.problems.push(...matching.problems);
  result.notes.push(...matching.notes);

  for (const m of mutants) {
    if (m.status === 'Ignored' || m.status === 'Pending') {
      result.ignored += 1;
      continue;
    }
    result.mutants += 1;
    if (m.status === 'Killed') result.killed += 1;
    else if (m.status === 'Timeout') result.timeout += 1;
    else if (m.status === 'CompileError' || m.status === 'RuntimeError') result.errors += 1;
    else {
      if (m.status === 'Survived') result.survived += 1;
      else result.noCoverage += 1;
      const mark = equivalentIds.has(m.id) ? ' [equivalent]' : m.status === 'NoCoverage' ? ' [no coverage]' : '';
      result.survivors.push(`${describeMutant(file, entry.source, m)}${mark}`);
    }
  }
  result.equivalent = equivalentIds.size;
  const detected = result.killed + result.timeout;
  const valid = detected + result.survived + result.noCoverage;
  result.raw = valid === 0 ? 100 : (100 * detected) / valid;
  result.score = valid - result.equivalent === 0 ? 100 : (100 * detected) / (valid - result.equivalent);
  // Per-test coverage lists, for each mutant, the tests that reached it. If no mutant has any,
  // the tests ran against some other copy of the file (the sandbox redirect failed).
  const perTest = mutants.filter((m) => m.static !== true);
  if (perTest.length > 0 && perTest.every((m) => (m.coveredBy ?? []).length === 0) && perTest.some((m) => m.status !== 'NoCoverage')) {
    result.problems.push('no mutant was reached by any test according to per-test coverage: the tests did not load the mutated copy');
  }
  return result;
}

/**
 * The spec files of `globs` that git tracks: a test file someone is still writing (untracked)
 * must not break the dry run of a long mutation run that happens to start meanwhile. Applied to
 * the specs of targets.ts only; `--spec` is taken as given (to try tests not committed yet).
 */
function committedSpecs(globs: readonly string[]): string[] {
  const listed = spawnSync('git', ['ls-files', '--', ...globs], { cwd: ROOT, encoding: 'utf8' });
  if (listed.status !== 0) fail(`git ls-files failed: ${listed.stderr}`);
  const files = listed.stdout.split('\n').filter(Boolean);
  if (files.length === 0) fail(`no tracked spec file matches ${globs.join(', ')}`);
  return files;
}

function runStryker(file: string, spec: readonly string[], concurrency: number, ignoreStatic: boolean, jsonFile: string): number {
  rmSync(jsonFile, { force: true });
  const started = process.hrtime.bigint();
  const child = spawnSync(process.execPath, [STRYKER, 'run', 'stryker.config.mjs'], {
    cwd: ROOT,
    stdio: 'inherit',
    env: {
      ...process.env,
      WALLET_MUTATE: file,
      WALLET_MUTATION_SPEC: spec.join(','),
      WALLET_MUTATION_CONCURRENCY: String(concurrency),
      WALLET_MUTATION_BREAK: 'off',
      WALLET_MUTATION_IGNORE_STATIC: ignoreStatic ? '1' : '',
      WALLET_MUTATION_JSON: relative(ROOT, jsonFile),
      WALLET_MUTATION_HTML: relative(ROOT, jsonFile.replace(/\.json$/, '.html')),
    },
  });
  if (child.signal !== null) fail(`Stryker was stopped by ${child.signal}`);
  if (child.status !== 0) console.error(`test:mutation: Stryker exited with ${child.status} for ${file}`);
  return Number(process.hrtime.bigint() - started) / 1e9;
}

function table(results: Result[], threshold: number): string {
  const rows = results.map((r) =>
    `| ${r.file} | ${r.mutants} | ${r.killed + r.timeout} | ${r.survived} | ${r.noCoverage} | ${r.equivalent} | ${r.ignored} | ${r.raw.toFixed(1)} | ${r.score.toFixed(1)} | ${Math.round(r.seconds)} s | ${r.score >= threshold && r.problems.length === 0 ? 'pass' : 'FAIL'} |`);
  return [
    '| file | mutants | killed (incl. timeout) | survived | no coverage | equivalent | ignored (static) | raw score % | score % | wall time | verdict |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

/** The file's row of results.json, and the docs table regenerated from it: what docs/testing.md shows is the last run. */
function record(r: Result, args: ReturnType<typeof parseArgs>): void {
  const path = join(ROOT, RESULTS_PATH);
  const doc = JSON.parse(readFileSync(path, 'utf8')) as ResultsFile;
  const row: FileResult = {
    file: r.file,
    mutants: r.mutants,
    killed: r.killed + r.timeout,
    survived: r.survived + r.noCoverage,
    equivalent: r.equivalent,
    ...(args.ignoreStatic ? { ignored: r.ignored, ignoreStatic: true } : {}),
    raw: Math.round(r.raw * 10) / 10,
    score: Math.round(r.score * 10) / 10,
    verdict: r.score >= args.threshold && r.problems.length === 0 ? 'pass' : 'FAIL',
    date: new Date().toISOString().slice(0, 10),
    seconds: Math.round(r.seconds),
    ...(args.spec === undefined ? {} : { spec: args.spec }),
  };
  writeFileSync(path, `${JSON.stringify(recordResult(doc, row), null, 2)}\n`);
  writeTable(ROOT);
}

function main(): void {
  const args = parseArgs(process.argv.slice(2));
  const targetFiles = [...new Set(TARGETS.flatMap((t) => expand(t.mutate)))].filter((f) => !SKIPPED.some((re) => re.test(f)));
  let files = args.files.length > 0 ? args.files.flatMap((f) => expand(normalise(f))) : targetFiles;
  if (args.since !== undefined) {
    const diff = spawnSync('git', ['diff', '--name-only', `${args.since}...HEAD`], { cwd: ROOT, encoding: 'utf8' });
    if (diff.status !== 0) fail(`git diff ${args.since}...HEAD failed: ${diff.stderr}`);
    const changed = new Set(diff.stdout.split('\n').filter(Boolean));
    files = targetFiles.filter((f) => changed.has(f));
    if (files.length === 0) {
      console.log(`test:mutation: no file of test/mutation/targets.ts changed since ${args.since}; nothing to do`);
      return;
    }
  }
  if (files.length === 0) fail('no files to mutate');
  for (const file of files) if (!existsSync(join(ROOT, file))) fail(`no such file: ${file}`);

  checkClean('before the run');
  const equivalents = loadEquivalents();
  mkdirSync(REPORTS, { recursive: true });
  const summaryFile = args.summary ?? join(REPORTS, 'summary.md');
  const results: Result[] = [];
  // Rewritten after every file, so a long run can be read (and its survivors worked on) while it goes on.
  const writeSummary = (): string => {
    const lines = [
      `# Mutation testing, ${new Date().toISOString()}`,
      '',
      `Threshold ${args.threshold}% per file; "score" leaves out the survivors listed in test/mutation/equivalent-mutants.json.`,
      '',
      table(results, args.threshold),
      '',
    ];
    for (const r of results) {
      if (r.survivors.length === 0 && r.problems.length === 0 && r.notes.length === 0) continue;
      lines.push(`## ${r.file}`, '', ...r.problems.map((p) => `- PROBLEM: ${p}`), ...r.notes.map((n) => `- note: ${n}`), ...r.survivors.map((s) => `- ${s}`), '');
    }
    const summary = lines.join('\n');
    writeFileSync(summaryFile, summary);
    return summary;
  };
  for (const file of files) {
    const targetSpec = TARGETS.find((t) => matches(file, t.mutate))?.spec;
    const spec = args.spec ?? (targetSpec === undefined ? undefined : committedSpecs(targetSpec));
    if (spec === undefined) fail(`${file} is not in test/mutation/targets.ts: name its specs with --spec`);
    const jsonFile = join(REPORTS, `${file.replace(/[/\\]/g, '__')}.json`);
    console.log(`\ntest:mutation: ${file} (specs: ${spec.join(', ')})`);
    const seconds = runStryker(file, spec, args.concurrency, args.ignoreStatic, jsonFile);
    checkClean(`after mutating ${file}`);
    if (!existsSync(jsonFile)) {
      results.push({ ...summarise(file, { files: {} }, [], seconds), problems: ['Stryker wrote no report (see its output above)'] });
    } else {
      const result = summarise(file, JSON.parse(readFileSync(jsonFile, 'utf8')) as Report, equivalents, seconds);
      results.push(result);
      if (args.record) record(result, args);
    }
    writeSummary();
  }
  console.log(`\n${writeSummary()}\n(also in ${relative(ROOT, summaryFile)}; HTML reports next to it)`);
  const failed = results.filter((r) => r.score < args.threshold || r.problems.length > 0);
  if (failed.length > 0) fail(`${failed.length} of ${results.length} files below ${args.threshold}% or with problems: ${failed.map((r) => r.file).join(', ')}`);
}

main();
