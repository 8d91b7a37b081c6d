import type { Knex } from '@wallet/backend-core';

/** A statement as knex's `query` event gives it. */
export interface Statement {
  sql: string;
  bindings: Knex.RawBinding[];
}

/** Runs `work` and returns the statements it sent that match `pattern` (knex's `query` event). */
export async function statementsOf(knex: Knex, pattern: RegExp, work: () => Promise<unknown>): Promise<Statement[]> {
  const statements: Statement[] = [];
  const listen = (query: Statement) => void (pattern.test(query.sql) && statements.push(query));
  knex.on('query', listen);
  try {
    await work();
  } finally {
    knex.off('query', listen);
  }
  return statements;
}

/** Runs `work` and counts the DELETE statements it sent to `table`: how a test sees batching without timing it. */
export async function deletesOf(knex: Knex, table: string, work: () => Promise<unknown>): Promise<number> {
  return (await statementsOf(knex, /^delete from [`"]?/i, work)).filter((statement) => statement.sql.includes(table)).length;
}
