import { spawnSync } from 'node:child_process';
import { requireTool } from '../../harness/processes.js';

/** One sample of the text exposition: `name{a="b",…} value`. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** A deliberately small parser of Prometheus text format 0.0.4, independent of prom-client. */
export function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (match === null) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[pair[1]!] = pair[2]!;
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** Every family the exposition declares (`# TYPE name type`), with its type. */
export function familiesOf(text: string): Map<string, string> {
  const families = new Map<string, string>();
  for (const match of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) families.set(match[1]!, match[2]!);
  return families;
}

/** Every series name a query can select from the exposition: each family, and a histogram's `_bucket`, `_sum` and `_count`. */
export function selectableNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const [name, type] of familiesOf(text)) {
    names.add(name);
    if (type === 'histogram' || type === 'summary') for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${name}${suffix}`);
  }
  return names;
}

/** The samples named `name` whose labels include `labels`. */
export function samplesOf(samples: Sample[], name: string, labels: Record<string, string> = {}): Sample[] {
  return samples.filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value));
}

/** The value of the one sample named `name` whose labels include `labels`; undefined when there is none. */
export function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samplesOf(samples, name, labels);
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value;
}

export async function scrape(url: string): Promise<{ status: number; text: string; samples: Sample[] }> {
  const response = await fetch(url);
  const text = await response.text();
  return { status: response.status, text, samples: response.status === 200 ? parseExposition(text) : [] };
}

const PROMQL_WORDS = new Set(['by', 'without', 'and', 'or', 'unless', 'bool', 'offset', 'on', 'ignoring', 'group_left', 'group_right', 'inf', 'nan']);

/**
 * The series names a PromQL expression selects: label matchers, strings, ranges, grouping
 * clauses, Grafana variables and function calls taken out, what is left of the identifiers.
 */
export function seriesNamesIn(expr: string): Set<string> {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\$\{?\w+\}?/g, ' ')
    .replace(/(?<![\w:])\d[\d.]*(?:e[-+]?\d+)?/gi, ' ');
  const names = new Set<string>();
  for (const match of stripped.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*(\s*\()?/g)) {
    if (match[1] !== undefined) continue;
    const word = match[0];
    if (PROMQL_WORDS.has(word.toLowerCase()) || /^\d/.test(word)) continue;
    names.add(word);
  }
  return names;
}

/** `promtool` on PATH, or why the check cannot run. */
function promtoolAvailable(): boolean {
  return spawnSync('promtool', ['--version'], { stdio: 'ignore' }).status === 0;
}

/**
 * Skips the calling test when promtool is missing, except in CI (`WALLET_CI=1`), where a missing
 * tool must fail the run rather than pass it unchecked.
 */
export function requirePromtool(context: Mocha.Context): void {
  requireTool(context, promtoolAvailable(), {
    skipped: '      (skipped: promtool is not installed; apt-get install --no-install-recommends prometheus)',
    ciError: 'promtool is not installed but WALLET_CI=1 (apt-get install --no-install-recommends prometheus)',
  });
}

/** Runs promtool with `input` on stdin; its exit status and everything it printed. */
export function promtool(args: string[], input?: string): { status: number | null; output: string } {
  const run = spawnSync('promtool', args, { input, encoding: 'utf8', timeout: 60_000 });
  return { status: run.status, output: `${run.stdout ?? ''}${run.stderr ?? ''}`.trim() };
}
