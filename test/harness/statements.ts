import type { Knex } from '@wallet/backend-core';

/** Runs `work` and counts the DELETE statements it sent to `table` (knex's `query` event): how a test sees batching without timing it. */
export async function deletesOf(knex: Knex, table: string, work: () => Promise<unknown>): Promise<number> {
  let deletes = 0;
  const onQuery = (query: { sql: string }) => {
    if (/^delete from [`"]?/i.test(query.sql) && query.sql.includes(table)) deletes += 1;
  };
  knex.on('query', onQuery);
  try {
    await work();
  } finally {
    knex.off('query', onQuery);
  }
  return deletes;
}
