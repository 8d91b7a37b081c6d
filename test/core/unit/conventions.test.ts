import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect } from 'chai';
import { filesUnder, REPO_ROOT } from '../../harness/index.js';

/** Source text without comments (which may well mention `now()` to forbid it). */
function code(file: string): string {
  return readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
}

const packageSources = filesUnder(join(REPO_ROOT, 'packages'), (path) => path.endsWith('.ts'), (name) => name === 'dist' || name === 'node_modules');
const outsideStorage = packageSources.filter((file) => !relative(REPO_ROOT, file).startsWith('packages/core/src/storage/'));

/** One module knows the dialect (docs/architecture.md#one-place-per-rule); time comes from the clock (docs/architecture.md#time). */
describe('storage conventions', () => {
  it('finds the package sources', () => {
    expect(packageSources.length).to.be.greaterThan(20);
  });

  it('no SQL clock (now(), CURRENT_TIMESTAMP, knex.fn.now) anywhere in the packages', () => {
    const sqlClock = /['"`][^'"`\n]*\b(now|datetime|current_timestamp)\s*\([^'"`\n]*['"`]|CURRENT_TIMESTAMP|fn\.now\(/i;
    expect(sqlClock.test("trx.raw('select now()')"), 'the pattern itself').to.equal(true);
    expect(sqlClock.test('this.clock.now()'), 'the injected clock is fine').to.equal(false);
    for (const file of packageSources) expect(code(file), relative(REPO_ROOT, file)).to.not.match(sqlClock);
  });

  it('no dialect knowledge outside core/src/storage', () => {
    for (const file of outsideStorage) {
      const text = code(file);
      const where = relative(REPO_ROOT, file);
      expect(text, where).to.not.match(/from '(pg|better-sqlite3)'/);
      expect(text, where).to.not.match(/client\.config|dialect\.kind\s*===|'postgres'\s*\?|SQLITE_|23505/);
    }
  });
});

/** The repository explains itself (docs/architecture.md#documentation): what it cites is in it. */
describe('citations stay inside the repository', () => {
  const scanned = (dir: string): string[] =>
    filesUnder(
      dir,
      (_path, name) => /\.(ts|md|mjs|cjs|js|sh)$/.test(name) || !name.includes('.'),
      (name) => name === 'dist' || name === 'node_modules' || name.startsWith('.'),
    );
  const files = [...['README.md', 'eslint.config.js', 'stryker.config.mjs', 'Dockerfile', 'compose.yaml', '.ci/run'].map((file) => join(REPO_ROOT, file)), ...['packages', 'examples', 'test', 'docs', 'scripts', 'deploy'].flatMap((dir) => scanned(join(REPO_ROOT, dir)))];
  // Assembled from parts, so this file does not cite what it forbids.
  const outside = new RegExp([['STYLE', ' [A-Z][0-9]'], ['DESIGN', ' §'], ['DESIGN', '\\.md'], ['STYLE', '\\.md'], ['\\.\\.', '/shared'], ['(?<![\\w/.-])shared', '/(spec|vectors|reference)\\b']].map((parts) => parts.join('')).join('|'));
  const architecture = readFileSync(join(REPO_ROOT, 'docs/architecture.md'), 'utf8');
  const anchors = new Set([...architecture.matchAll(/^#{2,4} (.+)$/gm)].map(([, heading]) => heading!.toLowerCase().replace(/[^\w\- ]/g, '').replace(/ /g, '-')));

  it('finds the files and the headings', () => {
    expect(files.length).to.be.greaterThan(100);
    expect(anchors).to.include('one-place-per-rule').and.include('verified-from-the-wire');
  });

  it('no file cites design notes that are not in the repository', () => {
    expect(outside.test(['see ', 'DESIGN', ' §4'].join('')), 'the pattern itself').to.equal(true);
    expect(outside.test('test/vectors/btc.json'), 'the repository’s own vectors').to.equal(false);
    const citing = files.flatMap((file) =>
      readFileSync(file, 'utf8').split('\n').flatMap((line, i) => (outside.test(line) ? [`${relative(REPO_ROOT, file)}:${i + 1}: ${line.trim().slice(0, 120)}`] : [])),
    );
    expect(citing, citing.join('\n')).to.deep.equal([]);
  });

  it('every heading of docs/architecture.md that is cited exists', () => {
    const cited = files.flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/architecture\.md#([\w-]+)/g)].map(([, anchor]) => ({ file: relative(REPO_ROOT, file), anchor: anchor! })),
    );
    expect(cited.length, 'code cites the rules').to.be.greaterThan(10);
    const missing = cited.filter(({ anchor }) => !anchors.has(anchor)).map(({ file, anchor }) => `${file}: #${anchor}`);
    expect(missing, missing.join('\n')).to.deep.equal([]);
  });
});
