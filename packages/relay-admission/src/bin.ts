#!/usr/bin/env node
import { Command, InvalidArgumentError } from 'commander';
import { createJsonLogger, readSecretFiles } from '@wallet/backend-core/database';
import { createRelayAdmission, ADMISSION_DEFAULTS } from './admission.js';
import { checkAdmissionDatabase, CHECK_EXIT_CODES, type DatabaseCheck } from './check.js';
import { runStrfryPlugin, STRFRY_DEFAULT_TIMEOUT_MS } from './strfry.js';

interface GlobalOptions {
  environmentFile?: string;
  databaseUrl?: string;
  databaseTimeoutMs: number;
  cacheTtlMs: number;
  policy: string;
}

const whole = (name: string) => (text: string) => {
  if (!/^\d{1,7}$/.test(text)) throw new InvalidArgumentError(`${name} must be a whole number`);
  return Number(text);
};

const usageError = (message: string): never => {
  process.stderr.write(`wallet-relay-admission: ${message}\n`);
  process.exit(CHECK_EXIT_CODES.usage);
};

/** JSON lines on stderr: stdout is the relay's channel. */
const log = createJsonLogger({ write: (line) => process.stderr.write(`${line}\n`) });

/**
 * The database URL: `--database-url`, else DATABASE_URL, else the file DATABASE_URL_FILE names
 * (core's NAME_FILE rule), after `--environment-file` was loaded. Only the last two keep the password
 * out of the relay's configuration, its logs and `ps`.
 */
function databaseUrlOf(options: GlobalOptions): string {
  if (options.environmentFile !== undefined) {
    try {
      process.loadEnvFile(options.environmentFile);
    } catch (err) {
      usageError(`--environment-file ${options.environmentFile}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
    }
  }
  if (options.databaseUrl !== undefined && options.databaseUrl !== '') return options.databaseUrl;
  const files = readSecretFiles(process.env, ['DATABASE_URL']);
  if (files.problems.length > 0) usageError(files.problems.join('; '));
  const url = files.env.DATABASE_URL;
  return url === undefined || url === '' ? usageError('the wallet database is needed: DATABASE_URL_FILE, DATABASE_URL (in --environment-file or the environment) or --database-url') : url;
}

function admissionFrom(options: GlobalOptions, databaseUrl: string) {
  if (options.policy !== 'premium-post' && options.policy !== 'open') usageError('--policy must be premium-post or open');
  // The relays verify ids and signatures before they ask.
  return createRelayAdmission({ databaseUrl, verifySignatures: false, cacheTtlMs: options.cacheTtlMs, writePolicy: options.policy as 'premium-post' | 'open', timeoutMs: options.databaseTimeoutMs });
}

const describe = (check: DatabaseCheck) => (check.ok ? `ok: the wallet database at ${check.description} is ready for admission` : `${check.cause}: ${check.message} (${check.description})`);

/**
 * The start-up check of a long-lived mode: its finding goes to stderr, and the plugin keeps
 * running either way (refusing events it cannot decide), so a database fixed later needs no
 * restart and the relay never loses an event to a plugin that exited.
 */
function checkAtStartup(databaseUrl: string, timeoutMs: number): void {
  void checkAdmissionDatabase(databaseUrl, timeoutMs).then((check) => {
    if (check.ok) log.info('the wallet database is ready for admission', { database: check.description });
    else log.error('the wallet database cannot be used for admission: events are refused until this is fixed', { cause: check.cause, problem: check.message, database: check.description });
  });
}

const program = new Command('wallet-relay-admission')
  .description('Admits Nostr events to the operator relay by the wallet’s premium-post policy (docs/relay-operators.md)')
  .option('--environment-file <path>', 'load environment variables (DATABASE_URL or DATABASE_URL_FILE…) from this file first')
  .option('--database-url <url>', 'the wallet database (prefer DATABASE_URL_FILE or --environment-file: a URL here shows in ps and in the relay’s log)')
  .option('--database-timeout-ms <ms>', 'a database read slower than this refuses the event; uncached authors are then refused at once until the database answers', whole('--database-timeout-ms'), ADMISSION_DEFAULTS.timeoutMs)
  .option('--policy <name>', 'premium-post or open', ADMISSION_DEFAULTS.writePolicy)
  .option('--cache-ttl-ms <ms>', 'how long a user’s standing is reused (a premium lapse is exact regardless)', whole('--cache-ttl-ms'), ADMISSION_DEFAULTS.cacheTtlMs);

program
  .command('check')
  .description('checks the wallet database: reachable, credentials accepted, schema of this version; exit 0 ready, 2 usage, 3 unreachable, 4 authentication, 5 schema')
  .action(async () => {
    const options = program.opts<GlobalOptions>();
    const check = await checkAdmissionDatabase(databaseUrlOf(options), options.databaseTimeoutMs);
    (check.ok ? process.stdout : process.stderr).write(`${describe(check)}\n`);
    process.exitCode = check.ok ? CHECK_EXIT_CODES.ok : CHECK_EXIT_CODES[check.cause];
  });

program
  .command('strfry')
  .description('strfry write-policy plugin: JSON lines on stdin, one decision line per request on stdout')
  .option('--timeout-ms <ms>', 'reject a decision slower than this (strfry waits 10 s)', whole('--timeout-ms'), STRFRY_DEFAULT_TIMEOUT_MS)
  .action(async (options: { timeoutMs: number }) => {
    const global = program.opts<GlobalOptions>();
    const databaseUrl = databaseUrlOf(global);
    const admission = admissionFrom(global, databaseUrl);
    checkAtStartup(databaseUrl, global.databaseTimeoutMs);
    await runStrfryPlugin({ admission, input: process.stdin, output: process.stdout, warn: (message) => process.stderr.write(`${message}\n`), timeoutMs: options.timeoutMs });
    await admission.close();
  });

program
  .command('grpc')
  .description('nostr-rs-relay event admission server (nauthz.Authorization/EventAdmit)')
  .option('--listen <host:port>', 'where to listen', '127.0.0.1:50051')
  .option('--timeout-ms <ms>', 'deny a decision slower than this', whole('--timeout-ms'), ADMISSION_DEFAULTS.timeoutMs)
  .action(async (options: { listen: string; timeoutMs: number }) => {
    const global = program.opts<GlobalOptions>();
    const databaseUrl = databaseUrlOf(global);
    const admission = admissionFrom(global, databaseUrl);
    checkAtStartup(databaseUrl, global.databaseTimeoutMs);
    // gRPC is loaded by this mode only: the strfry plugin would load it at every start and keep it in its heap.
    const { startNauthzServer } = await import('./grpc.js');
    const server = await startNauthzServer({ admission, listen: options.listen, timeoutMs: options.timeoutMs });
    log.info('nauthz admission server listening', { address: server.address });
    const stop = () => {
      void server.close().then(() => admission.close()).then(() => process.exit(0));
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });

await program.parseAsync();
