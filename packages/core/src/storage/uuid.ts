const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether `value` has the shape of a UUID. Check it before comparing a `uuid` column with
 * caller input: Postgres rejects a malformed literal, which also aborts the surrounding
 * transaction, while SQLite would just match nothing.
 */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}
