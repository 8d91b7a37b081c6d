import type { Migration } from '../migrator.js';

/**
 * A task's lease row also says when the task is next due anywhere (`due_at`), so that several
 * processes sharing one database run a scheduled task once per interval between them, not once
 * per interval each. Additive: a nullable column; a row without it is due at once.
 */
export const leaseDueSchema: Migration = {
  id: '011_lease_due',
  async up(trx) {
    await trx.schema.alterTable('worker_leases', (t) => {
      t.timestamp('due_at', { useTz: true }).nullable();
    });
  },
};
