/**
 * Matching the entries of equivalent-mutants.json against the mutants of a Stryker report
 * (issue 29 item 12). Pure: no file system, no Stryker, so test/mutation/equivalents.test.ts can
 * check every rule and every message quickly.
 *
 * An entry is pinned by what the mutant is, not where it is: mutator + original text +
 * replacement, then, when the same text is mutated the same way more than once in the file,
 * `scope` (the enclosing function or method) and/or `context` (a piece of the mutant's source
 * line). `line` is only a last tie-break: a line number moves whenever anything above it changes,
 * and an entry that needed it broke on an unrelated edit (admission.ts, pinned to line 66 after
 * the line became 67).
 */

export interface Position { line: number; column: number }
export interface ReportMutant {
  id: string;
  mutatorName: string;
  replacement?: string;
  status: 'Killed' | 'Survived' | 'NoCoverage' | 'Timeout' | 'CompileError' | 'RuntimeError' | 'Ignored' | 'Pending';
  coveredBy?: string[];
  /** Module-level code: run against every test, so per-test coverage lists none. */
  static?: boolean;
  location: { start: Position; end: Position };
}
export interface Equivalent {
  file: string;
  mutator: string;
  original: string;
  replacement: string;
  /** The name of the function, method or class around the mutant (see enclosingName). */
  scope?: string;
  /** A piece of the source around the mutant that contains the mutated text, whitespace-insensitive. */
  context?: string;
  /** Tie-break only, when scope and context still leave several mutants. */
  line?: number;
  reason: string;
}
export interface Matching {
  /** Ids of the mutants the entries name. */
  ids: Set<string>;
  /** Each fails the run. */
  problems: string[];
  /** Worth knowing, never a failure (a line hint that moved). */
  notes: string[];
}

export const EQUIVALENTS_PATH = 'test/mutation/equivalent-mutants.json';

export const squash = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** The text a mutant replaces (report positions: 1-based lines and columns). */
export function originalText(source: string, location: ReportMutant['location']): string {
  const lines = source.split('\n');
  const { start, end } = location;
  if (start.line === end.line) return (lines[start.line - 1] ?? '').slice(start.column - 1, end.column - 1);
  return [
    (lines[start.line - 1] ?? '').slice(start.column - 1),
    ...lines.slice(start.line, end.line - 1),
    (lines[end.line - 1] ?? '').slice(0, end.column - 1),
  ].join('\n');
}

/** The whole source lines a mutant spans, squashed (shown in messages). */
export function lineText(source: string, location: ReportMutant['location']): string {
  return squash(source.split('\n').slice(location.start.line - 1, location.end.line).join('\n'));
}

function offset(source: string, position: Position): number {
  let index = 0;
  for (let line = 1; line < position.line; line += 1) index = source.indexOf('\n', index) + 1;
  return index + position.column - 1;
}

function looseRegExp(text: string): RegExp | undefined {
  const words = squash(text).split(' ').filter(Boolean).map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return words.length === 0 ? undefined : new RegExp(words.join('\\s+'), 'g');
}

/**
 * Whether `context` occurs in the source (whitespace-insensitive) around the mutant: an
 * occurrence that contains the mutated span, so `key.asset !== 'btc'` picks that literal and
 * not the other `'btc'` on the same line.
 */
export function contextFits(source: string, location: ReportMutant['location'], context: string): boolean {
  const pattern = looseRegExp(context);
  if (pattern === undefined) return true;
  const start = offset(source, location.start);
  const end = offset(source, location.end);
  return [...source.matchAll(pattern)].some((m) => m.index <= start && end <= m.index + m[0].length);
}

const NOT_NAMES = new Set(['if', 'for', 'while', 'switch', 'catch', 'return', 'function', 'await', 'new', 'typeof', 'throw', 'else', 'do', 'async', 'yield', 'super', 'this', 'void', 'delete', 'in', 'of', 'case']);
const DECLARATIONS: readonly RegExp[] = [
  /^(?:export\s+)?(?:default\s+)?(?:async\s+)?function\s*\*?\s*([\w$]+)/,
  /^(?:export\s+)?(?:default\s+)?(?:abstract\s+)?class\s+([\w$]+)/,
  /^(?:export\s+)?(?:const|let|var)\s+([\w$]+)\s*(?::[^=]+)?=\s*(?:async\s+)?(?:function\b|\(|[\w$]+\s*=>)/,
  /^(?:(?:public|private|protected|static|async|override|readonly|get|set)\s+)*#?([\w$]+)\s*(?:<[^(]*>)?\(/,
];

/**
 * The name of the nearest enclosing declaration of 1-based line `line`: walking up, each line
 * indented less than everything below it so far opens a block around the mutant; the first of
 * them that declares a function, method, class or function-valued const names the scope.
 * Textual (indentation, not a parse), which is what a reader pinning an entry sees too.
 * Undefined for module-level code.
 */
export function enclosingName(source: string, line: number): string | undefined {
  const lines = source.split('\n');
  const indent = (text: string): number => text.length - text.trimStart().length;
  const skip = (trimmed: string): boolean => trimmed === '' || trimmed.startsWith('//') || trimmed.startsWith('*') || trimmed.startsWith('/*');
  let limit = indent(lines[line - 1] ?? '');
  for (let i = line - 2; i >= 0 && limit > 0; i -= 1) {
    const text = lines[i]!;
    const trimmed = text.trim();
    if (skip(trimmed) || indent(text) >= limit) continue;
    limit = indent(text);
    for (const pattern of DECLARATIONS) {
      const name = pattern.exec(trimmed)?.[1];
      if (name !== undefined && !NOT_NAMES.has(name)) return name;
    }
  }
  return undefined;
}

export function describeMutant(file: string, source: string, m: ReportMutant): string {
  return `${file}:${m.location.start.line}:${m.location.start.column} ${m.mutatorName}: ${squash(originalText(source, m.location)).slice(0, 80)} → ${squash(m.replacement ?? '').slice(0, 80)}`;
}

/** How the entry is named in messages: its index in the file and the fields that pin it. */
export function entryLabel(eq: Equivalent, index: number): string {
  const pins = [
    eq.scope === undefined ? '' : `, scope "${eq.scope}"`,
    eq.context === undefined ? '' : `, context "${eq.context}"`,
    eq.line === undefined ? '' : `, line ${eq.line}`,
  ].join('');
  return `${EQUIVALENTS_PATH} mutants[${index}] (${eq.mutator}: ${eq.original} → ${eq.replacement}${pins})`;
}

const rerun = (file: string): string => `then rerun \`npm run test:mutation -- --mutate ${file}\``;

/**
 * The shortest context around `m` that none of `others` fits: the mutated text widened a word at
 * a time on both sides (across lines if need be), and by at least a dozen characters so that a
 * reader recognises it (`? [] :` would do, but says little); undefined when even three lines do
 * not do it.
 */
function shortestContext(source: string, m: ReportMutant, others: readonly ReportMutant[]): string | undefined {
  let start = offset(source, m.location.start);
  let end = offset(source, m.location.end);
  const floor = offset(source, { line: Math.max(1, m.location.start.line - 3), column: 1 });
  const ceiling = Math.min(source.length, offset(source, { line: m.location.end.line + 1, column: 1 }));
  const minimum = Math.min(squash(source.slice(start, end)).length + 12, squash(source.slice(floor, ceiling)).length);
  for (;;) {
    const context = squash(source.slice(start, end));
    if (context.length >= minimum && others.every((o) => !contextFits(source, o.location, context))) return context;
    if (start <= floor && end >= ceiling) return undefined;
    // One word (and the space before it) further on each side.
    while (start > floor && /\s/.test(source[start - 1]!)) start -= 1;
    while (start > floor && !/\s/.test(source[start - 1]!)) start -= 1;
    while (end < ceiling && /\s/.test(source[end]!)) end += 1;
    while (end < ceiling && !/\s/.test(source[end]!)) end += 1;
  }
}

/**
 * The JSON fields that pin `m` apart from the other `among`: its scope when no other shares it;
 * else the shortest context that tells it from those that do (with the scope, when there is
 * one); else, as a last resort, its line.
 */
export function pinFor(source: string, m: ReportMutant, among: readonly ReportMutant[]): string {
  const scope = enclosingName(source, m.location.start.line);
  const others = among.filter((o) => o.id !== m.id && (scope === undefined || enclosingName(source, o.location.start.line) === scope));
  const scopePin = scope === undefined ? '' : `"scope": ${JSON.stringify(scope)}`;
  if (scope !== undefined && others.length === 0) return scopePin;
  const context = shortestContext(source, m, others);
  const rest = context === undefined ? `"line": ${m.location.start.line}` : `"context": ${JSON.stringify(context)}`;
  return scope === undefined ? rest : `${scopePin}, ${rest}`;
}

/**
 * Which mutants of `file` the entries name, and what is wrong with the entries that name none,
 * several, or one the tests now kill. `equivalents` is the whole list (indices in messages are
 * positions in the JSON file); only the entries of `file` are looked at.
 */
export function matchEquivalents(file: string, source: string, mutants: readonly ReportMutant[], equivalents: readonly Equivalent[]): Matching {
  const matching: Matching = { ids: new Set(), problems: [], notes: [] };
  const claimedBy = new Map<string, number>();
  equivalents.forEach((eq, index) => {
    if (eq.file !== file) return;
    const label = entryLabel(eq, index);
    const same = mutants.filter((m) => m.mutatorName === eq.mutator
      && squash(m.replacement ?? '') === squash(eq.replacement)
      && squash(originalText(source, m.location)) === squash(eq.original));
    const inScope = eq.scope === undefined ? same : same.filter((m) => enclosingName(source, m.location.start.line) === eq.scope);
    const pinned = eq.context === undefined ? inScope : inScope.filter((m) => contextFits(source, m.location, eq.context!));
    let candidates = pinned;
    if (pinned.length > 1 && eq.line !== undefined) candidates = pinned.filter((m) => m.location.start.line === eq.line);

    if (pinned.length === 0) {
      const lines = same.map((m) => `line ${m.location.start.line}${enclosingName(source, m.location.start.line) === undefined ? '' : ` in ${enclosingName(source, m.location.start.line)}`}: ${lineText(source, m.location).slice(0, 100)} → pin with ${pinFor(source, m, same)}`);
      if (same.length > 0) {
        matching.problems.push(`${label}: its scope/context no longer fits any mutant of ${file} with that text. The mutants with it now are:\n${lines.map((l) => `    ${l}`).join('\n')}\n  Put the pin of the one the reason is about into the entry (replacing "scope"/"context"/"line"), ${rerun(file)}.`);
      } else {
        const near = mutants.filter((m) => m.mutatorName === eq.mutator
          && (squash(originalText(source, m.location)) === squash(eq.original) || squash(m.replacement ?? '') === squash(eq.replacement))
          && (m.status === 'Survived' || m.status === 'NoCoverage'));
        const hint = near.length === 0 ? '' : `\n  Surviving ${eq.mutator} mutants with the same original or replacement: ${near.slice(0, 5).map((m) => describeMutant(file, source, m)).join('; ')}`;
        matching.problems.push(`${label}: no mutant of ${file} has this mutator, original and replacement now (the code changed). If the mutant still survives under new text, copy "mutator", "original" and "replacement" from its survivor line in reports/mutation/summary.md (file:line:column Mutator: original → replacement) into the entry and check the reason still holds; if it is gone or killed, delete the entry; ${rerun(file)}.${hint}`);
      }
      return;
    }
    if (candidates.length !== 1) {
      const shown = candidates.length === 0 ? pinned : candidates;
      const why = candidates.length === 0 ? `several mutants fit and none is on line ${eq.line}` : `${candidates.length} mutants fit`;
      matching.problems.push(`${label}: ambiguous, ${why}:\n${shown.map((m) => `    line ${m.location.start.line}${enclosingName(source, m.location.start.line) === undefined ? '' : ` in ${enclosingName(source, m.location.start.line)}`}: ${lineText(source, m.location).slice(0, 100)} → pin with ${pinFor(source, m, shown)}`).join('\n')}\n  Add the pin of the one the reason is about to the entry, ${rerun(file)}.`);
      return;
    }
    const mutant = candidates[0]!;
    if (eq.line !== undefined && mutant.location.start.line !== eq.line) {
      matching.notes.push(`${label}: matched the mutant now on line ${mutant.location.start.line}; update its "line" to ${mutant.location.start.line}, or drop it if ${pinFor(source, mutant, same)} pins it`);
    }
    // Unreachable code shows up as NoCoverage: it may be listed like a survivor, with the reason it cannot be reached.
    if (mutant.status !== 'Survived' && mutant.status !== 'NoCoverage') {
      matching.problems.push(`${label}: the mutant is ${mutant.status} now, not a survivor (${describeMutant(file, source, mutant)}): the tests tell it apart, so it is not equivalent; delete the entry.`);
      return;
    }
    const earlier = claimedBy.get(mutant.id);
    if (earlier !== undefined) {
      matching.problems.push(`${label}: names the same mutant as mutants[${earlier}] (${describeMutant(file, source, mutant)}); delete one of them, or pin each to its own mutant.`);
      return;
    }
    claimedBy.set(mutant.id, index);
    matching.ids.add(mutant.id);
  });
  return matching;
}

/** Where `original` occurs in `source` as text (whitespace-insensitive), as report locations. */
export function textOccurrences(source: string, original: string): Array<ReportMutant['location']> {
  const pattern = looseRegExp(original);
  if (pattern === undefined) return [];
  const at = (index: number): Position => {
    const before = source.slice(0, index).split('\n');
    return { line: before.length, column: before[before.length - 1]!.length + 1 };
  };
  return [...source.matchAll(pattern)].map((m) => ({ start: at(m.index), end: at(m.index + m[0].length) }));
}

/**
 * A check that needs no Stryker run: the entry's original text must still be in its file where
 * its scope and context say. Every mutant is a piece of the source, so an entry failing this can
 * match no mutant; one passing it may still be stale (a full run decides), but an edit that moves
 * or rewrites a pinned line is caught by `npm test` instead of hours later.
 */
export function staticProblem(eq: Equivalent, index: number, source: string): string | undefined {
  const fits = textOccurrences(source, eq.original).filter((location) =>
    (eq.scope === undefined || enclosingName(source, location.start.line) === eq.scope)
    && (eq.context === undefined || contextFits(source, location, eq.context)));
  if (fits.length > 0) return undefined;
  return `${entryLabel(eq, index)}: "${squash(eq.original)}" is no longer in ${eq.file}${eq.scope === undefined && eq.context === undefined ? '' : ' where its scope/context say'}; run \`npm run test:mutation -- --mutate ${eq.file}\` and re-pin the entry as its failure message says (or delete it)`;
}
