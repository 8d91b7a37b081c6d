import type { Migration } from '../migrator.js';

/**
 * The audit chain erases without re-sealing (docs/decisions.md, "An erasure never re-seals the
 * audit chain"): an entry whose personal fields were scrubbed keeps its hash and carries the
 * time of the scrub and the server's seal over what is left. Verification resumes from sealed
 * checkpoints instead of seq 1. Additive: two nullable columns and a new table; existing entries
 * (including ones scrubbed the old way, re-sealed at the time) verify as before.
 */
export const auditErasureMarksSchema: Migration = {
  id: '010_audit_erasure_marks',
  async up(trx) {
    await trx.schema.alterTable('admin_audit', (t) => {
      t.timestamp('erased_at', { useTz: true }).nullable();
      t.string('erasure_mac', 64).nullable();
    });
    // A checkpoint says entries 1..seq verified, with seq's hash: sealed, so only the server writes one.
    await trx.schema.createTable('admin_audit_checkpoint', (t) => {
      t.bigInteger('seq').primary();
      t.string('row_hash', 64).notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.string('mac', 64).notNullable();
    });
  },
};
