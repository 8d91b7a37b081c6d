/** Statements kept per SQLite connection; the SQL knex builds repeats (placeholders, not values), so a few hundred cover a server. */
export const STATEMENT_CACHE_SIZE = 256;

interface PreparingConnection {
  prepare(sql: string): unknown;
}

/**
 * Makes a better-sqlite3 connection reuse its prepared statements: knex prepares every query
 * afresh, and compiling the SQL was a fifth of a simple read (`/users/{id}/keys`). Statements
 * are kept by their exact SQL text, the least recently used dropped past `size`. Reuse is safe
 * here: knex runs each statement to completion (`all` or `run`, both synchronous) before the
 * next, never holds an iterator, and SQLite re-prepares a statement itself when the schema
 * changes under it (migrations).
 */
export function cachePreparedStatements<C extends PreparingConnection>(connection: C, size = STATEMENT_CACHE_SIZE): C {
  const prepare = connection.prepare.bind(connection);
  const statements = new Map<string, unknown>();
  connection.prepare = (sql: string) => {
    let statement = statements.get(sql);
    if (statement === undefined) {
      statement = prepare(sql);
      if (statements.size >= size) statements.delete(statements.keys().next().value!);
    } else {
      statements.delete(sql);
    }
    statements.set(sql, statement);
    return statement;
  };
  return connection;
}
