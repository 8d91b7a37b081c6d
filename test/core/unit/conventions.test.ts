import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect } from 'chai';
import { REPO_ROOT } from '../../harness/index.js';

/** Source text without comments (which may well mention `now()` to forbid it). */
function code(file: string): string {
  return readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'dist' || name === 'node_modules' ? [] : sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

const packageSources = sourceFiles(join(REPO_ROOT, 'packages'));
const outsideStorage = packageSources.filter((file) => !relative(REPO_ROOT, file).startsWith('packages/core/src/storage/'));

/** DESIGN §4 and STYLE G6: one module knows the dialect; time comes from the clock. */
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
