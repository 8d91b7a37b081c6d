import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { BootError, createWalletBackend, defineErrors, defineRoute, describePlugin, type WalletPlugin } from '@wallet/backend-core';
import { erasureErrors, erasurePlugin } from '@wallet/erasure';
import { grinRelayErrors, grinRelayPlugin } from '@wallet/grin-relay';
import { premiumErrors, premiumPlugin } from '@wallet/premium';
import { tipErrors, tipsPlugin } from '@wallet/tips';
import { coreFeatures } from '../../../packages/core/src/composition/index.js';
import { checkPluginSet } from '../../../packages/core/src/plugin/index.js';
import { everyFeatureConfig, freshSqliteUrl, REPO_ROOT, TEST_PUBLIC_API_URL, TEST_SECRETS } from '../../harness/index.js';

/**
 * A plugin declares its surface as data beside `setup` (issue 31 item 5): version, dependencies,
 * migrations and error catalogues are known without booting, and the boot refuses a set that
 * disagrees, listing every problem.
 */

const plugin = (name: string, extra: Partial<WalletPlugin> = {}): WalletPlugin => ({ name, setup() {}, ...extra });
const errorsOf = (code: string) => defineErrors({ [code]: { status: 400, message: 'No.' } });

describe('plugins: the declared surface', () => {
  it('describePlugin reads version, dependencies, migrations and error codes without calling setup', () => {
    let setUp = false;
    const surface = describePlugin({
      name: 'notes',
      version: '1.2.3',
      dependencies: ['tips'],
      migrations: [{ id: '001_notes', up: async () => {} }],
      errors: [defineErrors({ note_not_found: { status: 404, message: 'Note not found.' } })],
      setup() {
        setUp = true;
      },
    });
    expect(surface).to.deep.equal({ name: 'notes', version: '1.2.3', dependencies: ['tips'], migrations: ['notes/001_notes'], errors: [{ code: 'note_not_found', status: 404 }], routes: null });
    expect(setUp).to.equal(false);
  });

  it('every shipped plugin declares its package version and every code of its catalogue', () => {
    const shipped = [
      { made: tipsPlugin({}), dir: 'tips', catalogue: tipErrors },
      { made: premiumPlugin({}), dir: 'premium', catalogue: premiumErrors },
      { made: erasurePlugin({}), dir: 'erasure', catalogue: erasureErrors },
      { made: grinRelayPlugin({}), dir: 'grin-relay', catalogue: grinRelayErrors },
    ];
    for (const { made, dir, catalogue } of shipped) {
      const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'packages', dir, 'package.json'), 'utf8')) as { version: string };
      const surface = describePlugin(made);
      expect(surface.version, dir).to.equal(version);
      expect(surface.errors.map((e) => e.code).sort(), dir).to.deep.equal(Object.keys(catalogue.specs).sort());
    }
  });

  it('refuses, listing every problem: a version of another shape, a missing, misplaced or self dependency, a code declared twice', () => {
    expect(checkPluginSet([plugin('a', { version: '1.0.0' }), plugin('b', { version: '2.0.0-rc.1+build.7', dependencies: ['a'] })], {})).to.deep.equal([]);
    // Shapes plain JavaScript can declare are listed, not thrown.
    expect(checkPluginSet([plugin('x', { dependencies: 'tips' as never }), plugin('y', { errors: [undefined] as never }), plugin('z', { errors: [errorsOf('fine').create] as never })], {})).to.deep.equal([
      'plugin "x": dependencies must be an array of plugin names',
      'plugin "y": errors must be an array of catalogues made with defineErrors',
      'plugin "z": errors must be an array of catalogues made with defineErrors',
    ]);
    const problems = checkPluginSet(
      [
        plugin('a', { version: 'v1', errors: [errorsOf('shared_code')] }),
        plugin('b', { dependencies: ['c', 'missing', 'b'], errors: [errorsOf('shared_code')] }),
        plugin('c'),
      ],
      {},
    );
    expect(problems).to.deep.equal([
      'plugin "a": version "v1" is not major.minor.patch',
      'plugin "b" needs plugin "c": register "c" before it',
      'plugin "b" needs plugin "missing", which is not registered',
      'plugin "b" names itself as a dependency',
      'error code "shared_code" is declared by plugin "a" and by plugin "b"',
    ]);
  });

  it('a code a plugin declares that core already declares refuses the boot, before any setup runs', async () => {
    let setUp = false;
    const clashing = plugin('clash', {
      errors: [defineErrors({ not_found: { status: 404, message: 'Mine.' } })],
      setup() {
        setUp = true;
      },
    });
    const boot = createWalletBackend({ publicApiUrl: TEST_PUBLIC_API_URL, databaseUrl: await freshSqliteUrl(), nodeEnv: 'test', ...TEST_SECRETS, plugins: [clashing] });
    const refused = await boot.then(
      async (backend) => {
        await backend.close();
        return null;
      },
      (err: unknown) => err,
    );
    expect(refused).to.be.instanceOf(BootError);
    expect((refused as BootError).problems).to.deep.equal(['error code "not_found" is declared by plugin "core" and by plugin "clash"']);
    expect(setUp).to.equal(false);
  });
});

describe('plugins: declared routes', () => {
  it('describePlugin lists the routes a plugin declares', () => {
    expect(describePlugin(plugin('notes', { routes: ['GET /api/v1/notes', 'POST /api/v1/notes'] })).routes).to.deep.equal(['GET /api/v1/notes', 'POST /api/v1/notes']);
  });

  it('every core feature and shipped plugin declares exactly the routes it adds, with every feature on', async () => {
    const shipped = [
      grinRelayPlugin({}),
      tipsPlugin({ enabled: true, targeted: true, shareBase: 'https://wallet.example.test/tip/' }),
      premiumPlugin({ enabled: true, plans: 'month:30:0.0001', relayUrl: 'wss://relay.example.test', writePolicy: 'premium-post' }),
      erasurePlugin({}),
    ];
    const backend = await createWalletBackend({ ...(await everyFeatureConfig()), plugins: shipped });
    try {
      // What the router serves, read from the router itself (HEAD is Koa's echo of GET).
      const served = backend.router.stack.flatMap((layer) => layer.methods.filter((method) => method !== 'HEAD').map((method) => `${method} ${String(layer.path).replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`));
      const declarations = [...coreFeatures(), ...shipped];
      for (const declaration of declarations) expect(declaration.routes, `${declaration.name} declares its routes`).to.be.an('array');
      const declared = declarations.flatMap((declaration) => [...(declaration.routes ?? [])]);
      expect(new Set(declared).size, 'no route is declared twice').to.equal(declared.length);
      expect([...declared].sort()).to.deep.equal([...served].sort());
    } finally {
      await backend.close();
    }
  });

  it('refuses, before any setup runs, a route two plugins declare (whatever they name its parameters) and a claim of another shape', () => {
    expect(
      checkPluginSet(
        [
          plugin('a', { routes: ['GET /api/v1/notes/{id}', 'POST /api/v1/notes'] }),
          plugin('b', { routes: ['GET /api/v1/notes/{note_id}', 'get /api/v1/x', 'GET api/v1/x', 'GET /api/v1/x?y', 'HEAD /api/v1/x'] }),
          plugin('c', { routes: 'GET /api/v1/c' as never }),
        ],
        {},
      ),
    ).to.deep.equal([
      'route GET /api/v1/notes/{note_id} is declared by plugin "a" and by plugin "b"',
      'plugin "b": route "get /api/v1/x" is not "METHOD /path" (GET, POST, PUT, PATCH, DELETE or OPTIONS, then the full path)',
      'plugin "b": route "GET api/v1/x" is not "METHOD /path" (GET, POST, PUT, PATCH, DELETE or OPTIONS, then the full path)',
      'plugin "b": route "GET /api/v1/x?y" is not "METHOD /path" (GET, POST, PUT, PATCH, DELETE or OPTIONS, then the full path)',
      'plugin "b": route "HEAD /api/v1/x" is not "METHOD /path" (GET, POST, PUT, PATCH, DELETE or OPTIONS, then the full path)',
      'plugin "c": routes must be an array of "METHOD /path" strings',
    ]);
  });

  it("a plugin declaring one of core's routes is refused before its setup runs; one whose setup adds a route it did not declare is refused", async () => {
    let setUp = false;
    const claimsCore = plugin('claims-core', {
      routes: ['GET /api/v1/health'],
      setup() {
        setUp = true;
      },
    });
    const undeclared = plugin('undeclared', {
      routes: ['GET /api/v1/declared'],
      setup(ctx) {
        ctx.routes.add(defineRoute({ method: 'GET', path: '/declared', summary: 'Declared', auth: 'none', handler: () => ({}) }));
        ctx.routes.add(defineRoute({ method: 'POST', path: '/sneaked/{id}', summary: 'Not declared', auth: 'none', handler: () => ({}) }));
      },
    });
    const boot = async (plugins: WalletPlugin[]) =>
      createWalletBackend({ publicApiUrl: TEST_PUBLIC_API_URL, databaseUrl: await freshSqliteUrl(), nodeEnv: 'test', ...TEST_SECRETS, plugins }).then(
        async (backend) => {
          await backend.close();
          return null;
        },
        (err: unknown) => err,
      );
    const first = await boot([claimsCore]);
    expect(first).to.be.instanceOf(BootError);
    expect((first as BootError).problems).to.deep.equal(['route GET /api/v1/health is declared by plugin "core" and by plugin "claims-core"']);
    expect(setUp).to.equal(false);
    const second = await boot([undeclared]);
    expect(second).to.be.instanceOf(BootError);
    expect((second as BootError).problems).to.deep.equal(["route POST /api/v1/sneaked/{id} is added by undeclared's setup but not among its declared routes"]);
  });
});
