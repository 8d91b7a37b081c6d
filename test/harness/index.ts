export * from './backend.js';
export * from './client.js';
export * from './users.js';
export { freshPostgresUrl, PG_ADMIN_URL } from './postgres.js';
export { freshSqliteUrl } from './sqlite.js';
export * from './processes.js';
export * from './hostile.js';
export * from './vectors.js';
export * from './wallet.js';
