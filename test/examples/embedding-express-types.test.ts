import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { REPO_ROOT } from '../harness/index.js';
import { RECIPE, recipeBlockAfter, recipeModule } from './embedding.js';

/**
 * The Express 5 recipe of docs/embedding.md type-checked as a host project would, with
 * `skipLibCheck: false` (issue 30, 3). In a host's install npm hoists Express 5's
 * `content-disposition@2`, which ships its own types, and `@types/koa` (which the core's public
 * types need) then reads it instead of `@types/content-disposition`: TS2694 in
 * `@types/koa/index.d.ts`. The documented `paths` entry clears it.
 *
 * The project is laid out as npm lays out such an install, from this repository's packages: its
 * node_modules links every package of the repository's, except `content-disposition`, which is
 * Express's own 2.x, and `@wallet/backend-core`, whose declarations are built into it.
 * `preserveSymlinks` makes TypeScript resolve from the links, as from installed copies.
 */

describe('embedding: the Express 5 recipe type-checks with skipLibCheck false', function () {
  this.timeout(120_000);
  let project: string;

  before(() => {
    project = mkdtempSync(join(tmpdir(), 'wallet-express-types-'));
    const modules = join(project, 'node_modules');
    mkdirSync(join(modules, '@types'), { recursive: true });
    mkdirSync(join(modules, '@wallet'));
    const repoModules = join(REPO_ROOT, 'node_modules');
    for (const entry of readdirSync(repoModules)) {
      if (entry === '.bin' || entry === '@wallet' || entry === '@types' || entry === 'content-disposition') continue;
      symlinkSync(join(repoModules, entry), join(modules, entry));
    }
    for (const entry of readdirSync(join(repoModules, '@types'))) symlinkSync(join(repoModules, '@types', entry), join(modules, '@types', entry));
    symlinkSync(join(repoModules, 'express/node_modules/content-disposition'), join(modules, 'content-disposition'));

    const core = join(modules, '@wallet/backend-core');
    const built = spawnSync(
      process.execPath,
      [join(repoModules, 'typescript/bin/tsc'), '-p', join(REPO_ROOT, 'packages/core/tsconfig.json'), '--emitDeclarationOnly', '--declarationMap', 'false', '--outDir', join(core, 'dist'), '--tsBuildInfoFile', join(project, 'core.tsbuildinfo')],
      { cwd: REPO_ROOT, encoding: 'utf8', timeout: 100_000 },
    );
    expect(built.status, `${built.stdout}${built.stderr}`).to.equal(0);
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'packages/core/package.json'), 'utf8')) as { name: string; version: string };
    writeFileSync(join(core, 'package.json'), JSON.stringify({ name: pkg.name, version: pkg.version, type: 'module', exports: { '.': { types: './dist/index.d.ts' } } }));
    cpSync(join(REPO_ROOT, 'LICENSE'), join(core, 'LICENSE'));

    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'host', private: true, type: 'module' }));
    writeFileSync(join(project, 'settings.ts'), recipeModule('settings.ts'));
    writeFileSync(join(project, 'backend.ts'), recipeModule('backend.ts'));
    writeFileSync(join(project, 'server.ts'), recipeBlockAfter('### c) Express'));
  });
  after(() => rmSync(project, { recursive: true, force: true }));

  function check(paths?: Record<string, string[]>): { status: number | null; output: string } {
    const compilerOptions = {
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      preserveSymlinks: true,
      module: 'nodenext',
      moduleResolution: 'nodenext',
      target: 'es2022',
      types: ['node'],
      ...(paths ? { paths } : {}),
    };
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['settings.ts', 'backend.ts', 'server.ts'] }));
    const run = spawnSync(process.execPath, [join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: project, encoding: 'utf8', timeout: 100_000 });
    return { status: run.status, output: `${run.stdout}${run.stderr}` };
  }

  it('without the workaround: TS2694 in @types/koa, and nothing else', () => {
    const { status, output } = check();
    expect(status, output).to.not.equal(0);
    const errors = output.split('\n').filter((line) => /error TS\d+/.test(line));
    expect(errors, output).to.have.length(1);
    expect(errors[0]).to.match(/^node_modules\/@types\/koa\/index\.d\.ts\(\d+,\d+\): error TS2694: Namespace '.*content-disposition.*' has no exported member 'Options'\.$/);
  });

  it('with the paths entry docs/embedding.md gives: clean', () => {
    const documented = /"paths": (\{[^\n]*\})/.exec(RECIPE);
    expect(documented, 'a "paths": {…} line in docs/embedding.md').to.not.equal(null);
    const { status, output } = check(JSON.parse(documented![1]!) as Record<string, string[]>);
    expect(output).to.equal('');
    expect(status).to.equal(0);
  });
});
