// A child process for sweeper.test.ts: a backend on DATABASE_URL whose erasure hook deletes some of
// the user's rows inside the sweep's transaction, says "IN_HOOK" and then blocks until it is killed.
import { erasurePlugin } from '@wallet/erasure';
import type { WalletPlugin } from '@wallet/backend-core';
import { createTestBackend, type DialectName } from '../harness/index.js';

const blocker: WalletPlugin = {
  name: 'blocker',
  setup(ctx) {
    ctx.hooks.onUserErasure(async (trx, userId) => {
      await trx('sessions').where({ user_id: userId }).delete();
      await trx('login_events').where({ user_id: userId }).delete();
      await trx('users').where({ id: userId }).update({ username: 'half-erased' });
      process.stdout.write('IN_HOOK\n');
      await new Promise(() => undefined);
    });
  },
};

const t = await createTestBackend(process.env.DIALECT as DialectName, { databaseUrl: process.env.DATABASE_URL!, listen: false, plugins: [blocker, erasurePlugin({ enabled: true })] });
t.clock.set(process.env.NOW!);
process.stdout.write('READY\n');
await t.backend.scheduler.runNow('erasure.sweep');
process.stdout.write('SWEPT\n');
