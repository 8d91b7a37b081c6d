import { expect } from 'chai';
import type { PluginContext, WalletPlugin } from '@wallet/backend-core';
import { eachDialect, rejectionOf, seedUser, useTestBackend } from '../../harness/index.js';

/** Two plugins that keep rows about users and take part in erasure and export through the named hooks. */
function notesPlugin(name: string, calls: string[], failErasure = false): WalletPlugin & { ctx?: PluginContext } {
  const plugin: WalletPlugin & { ctx?: PluginContext } = {
    name,
    migrations: [
      {
        id: '001_create_notes',
        up: async (trx) => {
          await trx.schema.createTable(`${name}_notes`, (t) => {
            t.increments('id');
            t.uuid('user_id').notNullable();
            t.string('text').notNullable();
          });
        },
      },
    ],
    setup(ctx) {
      plugin.ctx = ctx;
      ctx.hooks.onUserErasure(async (trx, userId) => {
        calls.push(`${name}:erase`);
        await trx(`${name}_notes`).where({ user_id: userId }).delete();
        if (failErasure) throw new Error(`${name} refuses`);
      });
      ctx.hooks.onUserExport(async (userId) => {
        calls.push(`${name}:export`);
        return { notes: (await ctx.db.knex(`${name}_notes`).where({ user_id: userId }).select('text')).map((r) => r.text) };
      });
    },
  };
  return plugin;
}

eachDialect('named hooks: userErasure and userExport', (dialect) => {
  const calls: string[] = [];
  const first = notesPlugin('alpha', calls);
  const second = notesPlugin('beta', calls);
  const t = useTestBackend(dialect, { plugins: [first, second] });

  beforeEach(() => calls.splice(0));

  it('export collects each owner section, in registration order (core first)', async () => {
    const { id } = await seedUser(t.backend);
    await t.backend.db.knex('alpha_notes').insert({ user_id: id, text: 'a1' });
    await t.backend.db.knex('beta_notes').insert({ user_id: id, text: 'b1' });
    const sections = await first.ctx!.hooks.collectUserExport(id);
    expect(Object.keys(sections)).to.deep.equal(['core', 'alpha', 'beta']);
    expect(sections).to.deep.equal({
      core: { account: { id, username: null, nostr_pubkey: null, premium_until: null, created_at: '2026-01-01T00:00:00.000Z' }, suspension: null, keys: [], sessions: [], login_events: [] },
      alpha: { notes: ['a1'] },
      beta: { notes: ['b1'] },
    });
    expect(calls).to.deep.equal(['alpha:export', 'beta:export']);
  });

  it('erasure runs every handler inside the caller transaction', async () => {
    const { id } = await seedUser(t.backend);
    await t.backend.db.knex('alpha_notes').insert({ user_id: id, text: 'a1' });
    await t.backend.db.knex('beta_notes').insert({ user_id: id, text: 'b1' });
    await t.backend.db.transaction((trx) => first.ctx!.hooks.runUserErasure(trx, id));
    expect(calls).to.deep.equal(['alpha:erase', 'beta:erase']);
    expect(await t.backend.db.knex('alpha_notes').select('id')).to.deep.equal([]);
    expect(await t.backend.db.knex('beta_notes').select('id')).to.deep.equal([]);
  });
});

eachDialect('named hooks: a failing erasure handler', (dialect) => {
  const calls: string[] = [];
  const first = notesPlugin('alpha', calls);
  const failing = notesPlugin('beta', calls, true);
  const t = useTestBackend(dialect, { plugins: [first, failing] });

  it('aborts the whole erasure: the earlier handler work rolls back', async () => {
    const { id } = await seedUser(t.backend);
    await t.backend.db.knex('alpha_notes').insert({ user_id: id, text: 'a1' });
    const err = await rejectionOf(t.backend.db.transaction((trx) => first.ctx!.hooks.runUserErasure(trx, id)));
    expect((err as Error).message).to.equal('beta refuses');
    expect((await t.backend.db.knex('alpha_notes').select('text')).map((r) => r.text)).to.deep.equal(['a1']);
  });
});
