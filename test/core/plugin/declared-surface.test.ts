import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { BootError, createWalletBackend, defineErrors, describePlugin, type WalletPlugin } from '@wallet/backend-core';
import { erasureErrors, erasurePlugin } from '@wallet/erasure';
import { grinRelayErrors, grinRelayPlugin } from '@wallet/grin-relay';
import { premiumErrors, premiumPlugin } from '@wallet/premium';
import { tipErrors, tipsPlugin } from '@wallet/tips';
import { checkPluginSet } from '../../../packages/core/src/plugin/index.js';
import { freshSqliteUrl, REPO_ROOT, TEST_PUBLIC_API_URL, TEST_SECRETS } from '../../harness/index.js';

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
    expect(surface).to.deep.equal({ name: 'notes', version: '1.2.3', dependencies: ['tips'], migrations: ['notes/001_notes'], errors: [{ code: 'note_not_found', status: 404 }] });
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
