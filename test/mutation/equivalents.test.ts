import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { enclosingName, matchEquivalents, staticProblem, type Equivalent, type ReportMutant } from './equivalents.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const FILE = 'packages/x/src/worker.ts';

// Two methods with an identical guard line, and two `[]` in one function: the shapes that made
// line numbers necessary before (workers.ts, admission.ts).
const LINES = [
  'export class Worker {',
  '  async confirm(tip) {',
  '    return this.run(async (tip) => {',
  '      if (tip.a === null) return null;',
  '    });',
  '  }',
  '',
  '  async reconcile(tip) {',
  '    if (tip.a === null) return null;',
  '  }',
  '}',
  '',
  'async function judge(event) {',
  '  const tagged = event.kind === 1059 ? pubkeys(event) : [];',
  '  const recipients = tagged.length > 16 ? [] : tagged;',
  '  return { ok: true, tag: \'id\' };',
  '}',
];
const SOURCE = LINES.join('\n');

/** A mutant of `text`, the `nth` occurrence (0-based) on 1-based `line`, located by searching the line. */
function mutant(id: string, mutatorName: string, line: number, text: string, replacement: string, status: ReportMutant['status'] = 'Survived', nth = 0, lines = LINES): ReportMutant {
  let column = -1;
  for (let i = 0; i <= nth; i += 1) column = lines[line - 1]!.indexOf(text, column + 1);
  if (column < 0) throw new Error(`no ${text} on line ${line}`);
  return { id, mutatorName, replacement, status, location: { start: { line, column: column + 1 }, end: { line, column: column + 1 + text.length } } };
}

const GUARDS = [
  mutant('1', 'ConditionalExpression', 4, 'tip.a === null', 'false'),
  mutant('2', 'ConditionalExpression', 9, 'tip.a === null', 'false'),
];
const ARRAYS = [
  mutant('3', 'ArrayDeclaration', 14, '[]', '["Stryker was here"]'),
  mutant('4', 'ArrayDeclaration', 15, '[]', '["Stryker was here"]'),
];
const entry = (fields: Partial<Equivalent>): Equivalent => ({ file: FILE, mutator: 'ConditionalExpression', original: 'tip.a === null', replacement: 'false', reason: 'test', ...fields });

describe('mutation: equivalent-mutant matching (equivalent-mutants.json)', () => {
  it('names the enclosing method, function or class from the indentation, skipping unnamed arrows and calls', () => {
    expect(enclosingName(SOURCE, 4)).to.equal('confirm');
    expect(enclosingName(SOURCE, 9)).to.equal('reconcile');
    expect(enclosingName(SOURCE, 14)).to.equal('judge');
    expect(enclosingName(SOURCE, 2)).to.equal('Worker');
    expect(enclosingName(SOURCE, 1)).to.equal(undefined);
    expect(enclosingName('const check = (x) => {\n  return x > 0;\n};', 2)).to.equal('check');
  });

  it('matches a unique mutant by mutator and text, whatever its line: a stale line hint is a note, not a failure', () => {
    const idMutant = mutant('5', 'StringLiteral', 16, "'id'", '""');
    const result = matchEquivalents(FILE, SOURCE, [idMutant], [entry({ mutator: 'StringLiteral', original: "'id'", replacement: '""', line: 15 })]);
    expect([...result.ids]).to.deep.equal(['5']);
    expect(result.problems).to.deep.equal([]);
    expect(result.notes).to.have.length(1);
    expect(result.notes[0]).to.contain('test/mutation/equivalent-mutants.json mutants[0]').and.contain('now on line 16').and.contain('update its "line" to 16');
  });

  it('keeps matching an entry pinned by scope or context after unrelated lines are inserted above it', () => {
    const shifted = ['// a new header comment', '// and another', ...LINES];
    const source = shifted.join('\n');
    const mutants = [
      mutant('1', 'ConditionalExpression', 6, 'tip.a === null', 'false', 'Survived', 0, shifted),
      mutant('2', 'ConditionalExpression', 11, 'tip.a === null', 'false', 'Killed', 0, shifted),
      mutant('3', 'ArrayDeclaration', 16, '[]', '["Stryker was here"]', 'Survived', 0, shifted),
      mutant('4', 'ArrayDeclaration', 17, '[]', '["Stryker was here"]', 'Killed', 0, shifted),
    ];
    const entries = [
      entry({ scope: 'confirm' }),
      entry({ mutator: 'ArrayDeclaration', original: '[]', replacement: '["Stryker was here"]', context: 'pubkeys(event) : []' }),
    ];
    const result = matchEquivalents(FILE, source, mutants, entries);
    expect(result.problems).to.deep.equal([]);
    expect([...result.ids].sort()).to.deep.equal(['1', '3']);
  });

  it('a context must contain the mutated text where the mutant is: it tells apart two mutants on one line', () => {
    const both = [
      mutant('6', 'StringLiteral', 1, "'btc'", '""', 'Survived', 0, ["keys.filter((k) => k.asset !== 'btc'), { asset: 'btc' }"]),
      mutant('7', 'StringLiteral', 1, "'btc'", '""', 'Killed', 1, ["keys.filter((k) => k.asset !== 'btc'), { asset: 'btc' }"]),
    ];
    const source = "keys.filter((k) => k.asset !== 'btc'), { asset: 'btc' }";
    const result = matchEquivalents(FILE, source, both, [entry({ mutator: 'StringLiteral', original: "'btc'", replacement: '""', context: "asset !== 'btc'" })]);
    expect(result.problems).to.deep.equal([]);
    expect([...result.ids]).to.deep.equal(['6']);
  });

  it('an ambiguous entry fails and lists each candidate with the exact fields that would pin it', () => {
    const result = matchEquivalents(FILE, SOURCE, [...GUARDS, ...ARRAYS], [
      entry({}),
      entry({ mutator: 'ArrayDeclaration', original: '[]', replacement: '["Stryker was here"]' }),
    ]);
    expect(result.ids.size).to.equal(0);
    expect(result.problems).to.have.length(2);
    expect(result.problems[0]).to.contain('mutants[0]').and.contain('ambiguous, 2 mutants fit')
      .and.contain('line 4 in confirm').and.contain('pin with "scope": "confirm"')
      .and.contain('line 9 in reconcile').and.contain('pin with "scope": "reconcile"')
      .and.contain('npm run test:mutation -- --mutate packages/x/src/worker.ts');
    // Same function: the scope is not enough, so the shortest context that tells them apart.
    expect(result.problems[1]).to.contain('pin with "scope": "judge", "context": "pubkeys(event) : [];"')
      .and.contain('pin with "scope": "judge", "context": "16 ? [] : tagged;"');
  });

  it('an ambiguous entry whose line hint moved fails (the old behaviour for admission.ts) and says which line to pin or which context to use', () => {
    const result = matchEquivalents(FILE, SOURCE, ARRAYS, [entry({ mutator: 'ArrayDeclaration', original: '[]', replacement: '["Stryker was here"]', line: 13 })]);
    expect(result.ids.size).to.equal(0);
    expect(result.problems[0]).to.contain('several mutants fit and none is on line 13').and.contain('line 14 in judge').and.contain('line 15 in judge');
  });

  it('the line hint still breaks a tie that scope and context cannot', () => {
    const result = matchEquivalents(FILE, SOURCE, ARRAYS, [entry({ mutator: 'ArrayDeclaration', original: '[]', replacement: '["Stryker was here"]', line: 15 })]);
    expect(result.problems).to.deep.equal([]);
    expect([...result.ids]).to.deep.equal(['4']);
  });

  it('an entry whose text is gone fails, names the entry and says how to re-pin or delete it, with the nearest survivors', () => {
    const changed = mutant('8', 'ConditionalExpression', 9, 'tip.a === null', 'true');
    const result = matchEquivalents(FILE, SOURCE, [GUARDS[0]!, changed], [
      { file: 'packages/other.ts', mutator: 'X', original: 'y', replacement: 'z', reason: 'another file: ignored' },
      entry({ original: 'tip.b === null', replacement: 'true' }),
    ]);
    expect(result.problems).to.have.length(1);
    const [problem] = result.problems;
    expect(problem).to.contain('test/mutation/equivalent-mutants.json mutants[1] (ConditionalExpression: tip.b === null → true)')
      .and.contain('no mutant of packages/x/src/worker.ts has this mutator, original and replacement now')
      .and.contain('copy "mutator", "original" and "replacement" from its survivor line in reports/mutation/summary.md')
      .and.contain('delete the entry')
      .and.contain('npm run test:mutation -- --mutate packages/x/src/worker.ts')
      .and.contain('packages/x/src/worker.ts:9:') // the survivor with the same replacement
      .and.contain('tip.a === null → true');
  });

  it('an entry whose scope or context no longer fits fails and lists the mutants that have its text now', () => {
    const result = matchEquivalents(FILE, SOURCE, GUARDS, [entry({ scope: 'confirmFunding' })]);
    expect(result.problems[0]).to.contain('scope "confirmFunding"').and.contain('no longer fits')
      .and.contain('line 4 in confirm').and.contain('pin with "scope": "confirm"');
  });

  it('an entry for a mutant the tests now kill fails: it is not equivalent', () => {
    const result = matchEquivalents(FILE, SOURCE, [GUARDS[0]!, { ...GUARDS[1]!, status: 'Killed' }], [entry({ scope: 'reconcile' })]);
    expect(result.ids.size).to.equal(0);
    expect(result.problems[0]).to.contain('the mutant is Killed now').and.contain('delete the entry');
  });

  it('no-coverage mutants may be listed (unreachable code); two entries for one mutant fail', () => {
    const uncovered = { ...GUARDS[0]!, status: 'NoCoverage' as const };
    const result = matchEquivalents(FILE, SOURCE, [uncovered, GUARDS[1]!], [entry({ scope: 'confirm' }), entry({ context: 'return this.run(async (tip) => { if (tip.a === null)' })]);
    expect([...result.ids]).to.deep.equal(['1']);
    expect(result.problems).to.have.length(1);
    expect(result.problems[0]).to.contain('mutants[1]').and.contain('names the same mutant as mutants[0]');
  });

  it('compares original and replacement whitespace-insensitively (Stryker prints blocks on one line)', () => {
    const source = 'function f() {\n  if (x) {\n    return null;\n  }\n}';
    const block: ReportMutant = { id: '9', mutatorName: 'BlockStatement', replacement: '{}', status: 'Survived', location: { start: { line: 2, column: 10 }, end: { line: 4, column: 4 } } };
    const result = matchEquivalents(FILE, source, [block], [entry({ mutator: 'BlockStatement', original: '{ return null; }', replacement: '{}' })]);
    expect(result.problems).to.deep.equal([]);
    expect([...result.ids]).to.deep.equal(['9']);
  });

  it('the static check finds an entry whose text left its scope, without a Stryker run', () => {
    expect(staticProblem(entry({ scope: 'reconcile' }), 3, SOURCE)).to.equal(undefined);
    expect(staticProblem(entry({ scope: 'judge' }), 3, SOURCE)).to.contain('mutants[3]').and.contain('no longer in packages/x/src/worker.ts where its scope/context say')
      .and.contain('npm run test:mutation -- --mutate packages/x/src/worker.ts');
    expect(staticProblem(entry({ original: 'tip.c' }), 3, SOURCE)).to.contain('"tip.c" is no longer in');
  });

  it('every entry of equivalent-mutants.json still finds its text where its scope and context say', () => {
    const { mutants } = JSON.parse(readFileSync(join(ROOT, 'test/mutation/equivalent-mutants.json'), 'utf8')) as { mutants: Equivalent[] };
    const problems = mutants.map((eq, index) => staticProblem(eq, index, readFileSync(join(ROOT, eq.file), 'utf8'))).filter((p) => p !== undefined);
    expect(problems).to.deep.equal([]);
  });
});
