import { BootError, silentLogger } from '@wallet/backend-core';
import { bootBackend, loadServerConfig } from '@wallet/server';
import { maskDatabaseUrl } from '../backend.js';
import { CliFailure, printJson, type CliIo } from '../io.js';

/**
 * `config check --json`: `valid` is the whole verdict; `problems` lists the configuration's
 * (then `environment` and `database` are absent); `btcpay` is null when no BTCPay is configured.
 */
export type ConfigCheckJson =
  | { valid: false; problems: string[]; btcpay: null }
  | { valid: boolean; environment: string; database: string; btcpay: null | { ok: boolean; store_name: string | null; problems: string[] } };

/**
 * `wallet-backend config check [--json]`: the verdict the server would reach at start-up (every
 * violation at once), without connecting to the database, migrating, listening or generating
 * secrets. When BTCPay is configured it is asked whether the URL, store and key can create and
 * read invoices, because a wrong key otherwise shows up only as a 503 on the first payment.
 * Either failing is this command's failed check: exit code 1 (other commands: 4).
 */
export async function configCheckCommand(io: CliIo, options: { json?: boolean } = {}): Promise<void> {
  const config = loadServerConfig(io.env, { createDevSecrets: false });
  // Notes are commentary: under --json they go to stderr so stdout holds one document.
  for (const notice of config.notices) (options.json ? io.err : io.out)(`note: ${notice}`);
  let backend: Awaited<ReturnType<typeof bootBackend>>;
  try {
    backend = await bootBackend(config, silentLogger);
  } catch (err) {
    if (!(err instanceof BootError)) throw err;
    if (options.json) printJson(io, { valid: false, problems: [...err.problems], btcpay: null } satisfies ConfigCheckJson);
    throw new CliFailure(`configuration is invalid (${err.problems.length} problem${err.problems.length === 1 ? '' : 's'})`, err.problems);
  }
  let btcpay: Awaited<ReturnType<typeof backend.checkProcessor>>;
  try {
    btcpay = await backend.checkProcessor();
  } finally {
    await backend.close();
  }
  const database = maskDatabaseUrl(String(config.backend.databaseUrl));
  const environment = String(config.backend.nodeEnv);
  if (options.json) {
    printJson(io, {
      valid: btcpay === null || btcpay.ok,
      environment,
      database,
      btcpay: btcpay === null ? null : { ok: btcpay.ok, store_name: btcpay.storeName ?? null, problems: btcpay.problems },
    } satisfies ConfigCheckJson);
  }
  if (btcpay !== null && !btcpay.ok) {
    throw new CliFailure(`BTCPay check failed (${btcpay.problems.length} problem${btcpay.problems.length === 1 ? '' : 's'})`, btcpay.problems);
  }
  if (options.json) return;
  io.out(`configuration is valid (environment: ${environment}, database: ${database})`);
  if (btcpay !== null) io.out(`btcpay: the key can create and view invoices on store ${config.backend.btcpayStoreId as string}${btcpay.storeName === undefined ? '' : ` (${btcpay.storeName})`}`);
}
