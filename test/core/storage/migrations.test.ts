import { expect } from 'chai';
import {
  appliedMigrations,
  createWalletBackend,
  readTime,
  type Knex,
  type PluginMigration,
  type WalletBackend,
  type WalletPlugin,
} from '@wallet/backend-core';
import { captureLogger, ManualClock } from '@wallet/backend-core/testing';
import { eachDialect, freshDatabaseUrl, rejectionOf, TEST_PUBLIC_API_URL, TEST_SECRETS, type DialectName } from '../../harness/index.js';

const LEDGER = 'wallet_migrations';
/** Core's migrations in order; each test that lists the ledger expects exactly these first. */
const CORE = ['core/001_core_schema', 'core/002_identity_directory', 'core/003_registration_gates', 'core/004_price_cache', 'core/005_operator_admin', 'core/006_key_proofs', 'core/007_rate_limit_windows', 'core/008_users_premium_until', 'core/009_operator_console', 'core/010_audit_erasure_marks', 'core/011_lease_due'];
const CORE_TABLES = ['users', 'sessions', 'challenges', 'worker_leases', 'user_keys', 'login_events', 'restore_attempts', 'spent_proofs', 'invite_codes', 'registration_invoices', 'price_cache', 'admin_keys', 'admin_sessions', 'server_config', 'admin_audit', 'admin_audit_head', 'operator_settings'];
const START = '2026-03-01T12:00:00.000Z';

/** A plugin `demo` whose first migration creates `demo_items` (with a foreign key into core's `users`). */
function demoPlugin(extra: PluginMigration[] = [], seen: string[] = []): WalletPlugin {
  return {
    name: 'demo',
    migrations: [
      {
        id: '001_create_demo',
        async up(trx: Knex.Transaction) {
          // Core's schema is already there when a plugin's migrations run.
          seen.push(`demo/001_create_demo saw users: ${String(await trx.schema.hasTable('users'))}`);
          await trx.schema.createTable('demo_items', (t) => {
            t.string('id', 36).primary();
            t.uuid('user_id').notNullable().references('id').inTable('users');
          });
        },
      },
      ...extra,
    ],
    setup() {},
  };
}

/** A backend that has NOT been migrated (createTestBackend always migrates). */
async function unmigrated(databaseUrl: string, plugins: WalletPlugin[] = [], clock = new ManualClock(START)): Promise<WalletBackend> {
  return createWalletBackend({
    publicApiUrl: TEST_PUBLIC_API_URL,
    databaseUrl,
    nodeEnv: 'test',
    ...TEST_SECRETS,
    clock,
    logger: captureLogger(),
    plugins,
    schedulerEnabled: false,
  });
}

async function ledger(knex: Knex): Promise<Array<{ id: string; owner: string; applied_at: unknown }>> {
  return knex(LEDGER).select('id', 'owner', 'applied_at').orderBy('id');
}

async function tablesPresent(knex: Knex, names: string[]): Promise<string[]> {
  const present: string[] = [];
  for (const name of names) if (await knex.schema.hasTable(name)) present.push(name);
  return present;
}

eachDialect('storage: migrations', (dialect: DialectName) => {
  const open: WalletBackend[] = [];
  const track = (backend: WalletBackend) => (open.push(backend), backend);

  afterEach(async () => {
    await Promise.all(open.splice(0).map((backend) => backend.close()));
  });

  it('migrates a fresh database from zero and records core/001_core_schema in wallet_migrations', async () => {
    const backend = track(await unmigrated(await freshDatabaseUrl(dialect)));
    const { knex } = backend.db;
    expect(await appliedMigrations(knex)).to.deep.equal([]);
    expect(await tablesPresent(knex, [LEDGER, ...CORE_TABLES])).to.deep.equal([]);

    expect(await backend.migrate()).to.deep.equal(CORE);

    expect(await tablesPresent(knex, [LEDGER, ...CORE_TABLES])).to.deep.equal([LEDGER, ...CORE_TABLES]);
    const rows = await ledger(knex);
    expect(rows.map(({ id, owner }) => ({ id, owner }))).to.deep.equal(CORE.map((id) => ({ id, owner: 'core' })));
    // applied_at comes from the injected clock, not from the database.
    expect(readTime(rows[0]!.applied_at).toISOString()).to.equal(START);
    expect(await appliedMigrations(knex)).to.deep.equal(CORE);
  });

  it('a second migrate() applies nothing and leaves the ledger as it was', async () => {
    const backend = track(await unmigrated(await freshDatabaseUrl(dialect), [demoPlugin()]));
    expect(await backend.migrate()).to.have.length(CORE.length + 1);
    const before = await ledger(backend.db.knex);
    expect(await backend.migrate()).to.deep.equal([]);
    expect(await backend.migrate()).to.deep.equal([]);
    expect(await ledger(backend.db.knex)).to.deep.equal(before);
  });

  it('plugin migrations run after core and are recorded as <plugin>/<id>', async () => {
    const seen: string[] = [];
    const extra: PluginMigration = {
      id: '002_seed_demo',
      async up(trx) {
        seen.push('demo/002_seed_demo');
        await trx.schema.alterTable('demo_items', (t) => t.string('note', 20).nullable());
      },
    };
    const backend = track(await unmigrated(await freshDatabaseUrl(dialect), [demoPlugin([extra], seen)]));
    expect(await backend.migrate()).to.deep.equal([...CORE, 'demo/001_create_demo', 'demo/002_seed_demo']);
    expect(seen).to.deep.equal(['demo/001_create_demo saw users: true', 'demo/002_seed_demo']);
    const rows = await ledger(backend.db.knex);
    expect(rows.map(({ id, owner }) => ({ id, owner }))).to.deep.equal([
      ...CORE.map((id) => ({ id, owner: 'core' })),
      { id: 'demo/001_create_demo', owner: 'demo' },
      { id: 'demo/002_seed_demo', owner: 'demo' },
    ]);
    expect(await backend.db.knex.schema.hasColumn('demo_items', 'note')).to.equal(true);
  });

  it('a later boot with a new plugin applies only the new migrations', async () => {
    const databaseUrl = await freshDatabaseUrl(dialect);
    const first = await unmigrated(databaseUrl);
    expect(await first.migrate()).to.deep.equal(CORE);
    await first.close();

    const second = track(await unmigrated(databaseUrl, [demoPlugin()]));
    expect(await second.migrate()).to.deep.equal(['demo/001_create_demo']);
    expect(await appliedMigrations(second.db.knex)).to.have.members([...CORE, 'demo/001_create_demo']);
  });

  it('a migration that throws rolls the whole run back: no ledger rows, no tables', async () => {
    const boom: PluginMigration = {
      id: '002_boom',
      async up(trx) {
        await trx.schema.createTable('demo_half_done', (t) => t.increments('id'));
        throw new Error('migration exploded');
      },
    };
    const backend = track(await unmigrated(await freshDatabaseUrl(dialect), [demoPlugin([boom])]));
    const err = await rejectionOf(backend.migrate());
    expect((err as Error).message).to.include('migration exploded');

    const { knex } = backend.db;
    expect(await tablesPresent(knex, [LEDGER, ...CORE_TABLES, 'demo_items', 'demo_half_done'])).to.deep.equal([]);
    expect(await appliedMigrations(knex)).to.deep.equal([]);
    // The failure is not sticky: the same run fails again the same way, and nothing is half-applied.
    expect(((await rejectionOf(backend.migrate())) as Error).message).to.include('migration exploded');
    expect(await appliedMigrations(knex)).to.deep.equal([]);
  });

  it('a failing plugin migration on an already migrated core leaves core as it was', async () => {
    const databaseUrl = await freshDatabaseUrl(dialect);
    const core = await unmigrated(databaseUrl);
    await core.migrate();
    await core.close();

    const broken = demoPlugin([{ id: '002_boom', up: () => Promise.reject(new Error('second step failed')) }]);
    const backend = track(await unmigrated(databaseUrl, [broken]));
    expect(((await rejectionOf(backend.migrate())) as Error).message).to.include('second step failed');
    expect(await appliedMigrations(backend.db.knex)).to.deep.equal(CORE);
    expect(await tablesPresent(backend.db.knex, ['demo_items', ...CORE_TABLES])).to.deep.equal(CORE_TABLES);
  });

  it('two backends on one database apply each migration exactly once', async () => {
    const databaseUrl = await freshDatabaseUrl(dialect);
    const runs = { demo: 0 };
    const counted = (): WalletPlugin => {
      const plugin = demoPlugin();
      const [create] = plugin.migrations!;
      return {
        ...plugin,
        migrations: [
          {
            id: create!.id,
            async up(trx, d) {
              runs.demo += 1;
              await create!.up(trx, d);
            },
          },
        ],
      };
    };
    const a = track(await unmigrated(databaseUrl, [counted()]));
    const b = track(await unmigrated(databaseUrl, [counted()]));

    let results: string[][];
    if (dialect === 'postgres') {
      // Concurrent starts are safe on Postgres: the advisory lock serialises the two runs.
      results = await Promise.all([a.migrate(), b.migrate()]);
    } else {
      // Two processes migrating ONE SQLite file at the same moment is not supported
      // (docs/decisions.md › Migrations): each has its own single writer connection and no
      // cross-process migration lock. Starting them one after the other must still be safe.
      results = [await a.migrate(), await b.migrate()];
    }
    const all = results.flat().sort();
    expect(all).to.deep.equal([...CORE, 'demo/001_create_demo']);
    expect(results.filter((applied) => applied.length === 0)).to.have.length(1);
    expect(runs.demo).to.equal(1);
    expect((await ledger(a.db.knex)).map((row) => row.id)).to.deep.equal([...CORE, 'demo/001_create_demo']);
    expect(await appliedMigrations(b.db.knex)).to.have.members([...CORE, 'demo/001_create_demo']);
  });
});
