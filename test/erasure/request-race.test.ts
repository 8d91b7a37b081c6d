import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { Database, PluginContext, WalletPlugin } from '@wallet/backend-core';
import { ErasureService } from '../../packages/erasure/src/service.js';
import { eachDialect } from '../harness/index.js';
import { API, proof, useErasureWorld } from './harness.js';

const REQUEST_PATH = `${API}/account/erasure`;

/**
 * Two requests of one user at once, interleaved deterministically: the other request's row
 * lands between this request's check for a live request and its insert. The one-live index
 * refuses the insert, and this request answers with the winner's row (never a 409).
 */
eachDialect('erasure: a request that loses the insert race answers the winner', (dialect) => {
  let ctx: PluginContext | undefined;
  const probe: WalletPlugin = { name: 'race-probe', setup: (c) => void (ctx = c) };
  const w = useErasureWorld(dialect, { enabled: true }, [probe]);

  it('answers the live request the other one inserted, and one row is stored', async () => {
    const { t, user } = w;
    const db = ctx!.db;
    const winner = randomUUID();
    let armed = true;
    // knex(table) as the service calls it, except that the first insert into erasure_requests is preceded by the other request's insert.
    const racingKnex = new Proxy(db.knex, {
      apply(target, thisArg, args: unknown[]) {
        const builder = Reflect.apply(target, thisArg, args) as { insert: (row: unknown) => Promise<unknown> };
        if (args[0] !== 'erasure_requests' || !armed) return builder;
        const insert = builder.insert.bind(builder);
        builder.insert = async (row: unknown) => {
          armed = false;
          await db.knex('erasure_requests').insert({ id: winner, user_id: user.id, status: 'requested', created_at: db.dialect.time(t.clock.now()), attempts: 0 });
          return insert(row);
        };
        return builder;
      },
    });
    const service = new ErasureService({ db: { ...db, knex: racingKnex } as Database, clock: ctx!.clock, users: ctx!.users, auth: ctx!.auth, audit: ctx!.audit, hooks: ctx!.hooks, crypto: ctx!.crypto, enabled: true, graceMs: 72 * 3_600_000, loginEvents: 'purge' });
    const answer = await service.request(await proof(t, user.key, 'erasure_request', REQUEST_PATH));
    expect(armed, 'the race was staged').to.equal(false);
    expect(answer).to.deep.include({ erasure_id: winner, status: 'requested' });
    expect(await db.knex('erasure_requests').where({ user_id: user.id }).pluck('id')).to.deep.equal([winner]);
  });
});
