import { randomUUID } from 'node:crypto';
import type { Migration } from '../migrator.js';

/**
 * What the operator console needs to act on: a user can be suspended (reversibly, with the
 * operator's reason), and an invite code has a public id to list and revoke it by (the code's
 * hash stays private) and can be revoked before use. Additive: nullable columns, and existing
 * invite codes get their id here. The audit chain gets the indexes its filtered pages read.
 */
export const operatorConsoleSchema: Migration = {
  id: '009_operator_console',
  async up(trx) {
    await trx.schema.alterTable('users', (t) => {
      t.timestamp('suspended_at', { useTz: true }).nullable();
      t.string('suspension_reason', 500).nullable();
    });
    await trx.schema.alterTable('invite_codes', (t) => {
      t.uuid('id').nullable().unique();
      t.timestamp('revoked_at', { useTz: true }).nullable();
      // The admin list: newest first, ties broken by id.
      t.index(['created_at', 'id'], 'invite_codes_created_id');
    });
    await trx.schema.alterTable('admin_audit', (t) => {
      t.index(['action', 'seq'], 'admin_audit_action_seq');
      t.index(['target', 'seq'], 'admin_audit_target_seq');
    });
    const unnamed = (await trx('invite_codes').select('code_hash').whereNull('id')) as Array<{ code_hash: string }>;
    for (const { code_hash } of unnamed) await trx('invite_codes').where({ code_hash }).update({ id: randomUUID() });
  },
};
