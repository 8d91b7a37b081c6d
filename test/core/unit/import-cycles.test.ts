import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { expect } from 'chai';
import ts from 'typescript';
import { filesUnder, REPO_ROOT } from '../../harness/index.js';

/**
 * Import cycles in every `packages/<name>/src` (docs/architecture.md#import-cycles): a module graph with
 * cycles has no order to read it in, and the plugin contract must depend on nothing that
 * depends on it. Type-only imports count: they are how the contract's circle grew (to 88 files
 * before the barrels stopped re-exporting core's feature plugins).
 */

/** Every relative import or re-export of `file`, resolved to the .ts file it names. */
function importsOf(file: string, known: Set<string>): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const targets: string[] = [];
  for (const statement of source.statements) {
    if (!(ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement))) continue;
    const specifier = statement.moduleSpecifier;
    if (specifier === undefined || !ts.isStringLiteral(specifier) || !specifier.text.startsWith('.')) continue;
    const base = resolve(dirname(file), specifier.text);
    const candidates = [base.replace(/\.js$/, '.ts'), join(base, 'index.ts')];
    const target = candidates.find((candidate) => known.has(candidate));
    if (target !== undefined) targets.push(target);
  }
  return targets;
}

const sourceFiles = (dir: string) => filesUnder(dir, (path) => path.endsWith('.ts') && !path.endsWith('.d.ts'));

/** The strongly connected components with more than one file (or a file importing itself): Tarjan's algorithm. */
function importCycles(files: string[]): string[][] {
  const known = new Set(files);
  const edges = new Map(files.map((file) => [file, importsOf(file, known)]));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next++;
    stack.push(file);
    onStack.add(file);
    for (const target of edges.get(file)!) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || edges.get(file)!.includes(file)) cycles.push(component.sort());
  };
  for (const file of files) if (!index.has(file)) visit(file);
  return cycles;
}

describe('import cycles in packages/*/src (type-only imports included)', () => {
  const packages = readdirSync(join(REPO_ROOT, 'packages')).filter((name) => existsSync(join(REPO_ROOT, 'packages', name, 'src')));
  const files = packages.flatMap((name) => sourceFiles(join(REPO_ROOT, 'packages', name, 'src')));

  it('finds a planted cycle, and none in a chain (the detector itself)', () => {
    const dir = join(REPO_ROOT, 'test', 'fixtures', 'import-cycles');
    const cycles = importCycles(sourceFiles(dir)).map((cycle) => cycle.map((file) => relative(dir, file)));
    expect(cycles).to.deep.equal([['cycle/a.ts', 'cycle/b.ts', 'cycle/c.ts']]);
  });

  it('none', () => {
    expect(files.length, 'the walk found the sources').to.be.greaterThan(200);
    const cycles = importCycles(files).map((cycle) => `circle of ${cycle.length}: ${cycle.map((file) => relative(REPO_ROOT, file)).join(', ')}`);
    expect(cycles).to.deep.equal([]);
  });
});

describe("core's layers: what may import the contract and the core extensions", () => {
  const coreSrc = join(REPO_ROOT, 'packages', 'core', 'src');
  const files = sourceFiles(coreSrc);
  const known = new Set(files);
  const upper = (file: string) => /^(plugin|extensions|composition)\//.test(relative(coreSrc, file));
  /** The composition root, the core features (`<feature>/plugin.ts`), the public face and the upper layers themselves. */
  const mayReachUp = (path: string) => path === 'backend.ts' || path === 'index.ts' || /^[a-z-]+\/plugin\.ts$/.test(path) || /^(plugin|extensions|composition)\//.test(path);

  it('no service, kit or foundation imports plugin/, extensions/ or composition/', () => {
    const offenders = files
      .filter((file) => !mayReachUp(relative(coreSrc, file)))
      .flatMap((file) => importsOf(file, known).filter(upper).map((target) => `${relative(coreSrc, file)} imports ${relative(coreSrc, target)}`));
    expect(offenders).to.deep.equal([]);
  });

  it('only the composition root imports composition/, and only its list of core features imports a feature’s plugin.ts', () => {
    const intoComposition = files.filter((file) => !/^(composition\/|backend\.ts$)/.test(relative(coreSrc, file))).filter((file) => importsOf(file, known).some((target) => relative(coreSrc, target).startsWith('composition/')));
    expect(intoComposition.map((file) => relative(coreSrc, file))).to.deep.equal([]);
    const intoPlugins = files.filter((file) => relative(coreSrc, file) !== 'composition/core-features.ts').filter((file) => importsOf(file, known).some((target) => /^[a-z-]+\/plugin\.ts$/.test(relative(coreSrc, target))));
    expect(intoPlugins.map((file) => relative(coreSrc, file))).to.deep.equal([]);
  });
});
