/**
 * A test run in miniature for test/harness/leftovers.test.ts: makes this process's Postgres
 * database and SQLite directory the way any test does, prints where they are, and waits to be
 * killed; with the argument `exit`, calls process.exit() instead (no hook runs).
 */
import { dirname } from 'node:path';
import { freshPostgresUrl } from './postgres.js';
import { freshSqliteUrl } from './sqlite.js';

const database = new URL(await freshPostgresUrl()).pathname.slice(1);
const sqliteDir = dirname(freshSqliteUrl().slice('sqlite:'.length));
console.log(`ready ${JSON.stringify({ database, sqliteDir })}`);
if (process.argv[2] === 'exit') process.exit(3);
setInterval(() => undefined, 60_000);
