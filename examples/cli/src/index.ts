import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { WalletError } from '@wallet/backend-core';
import { databaseUnreachable, isConnectionError } from './backend.js';
import { adminListCommand, adminRevokeCommand } from './commands/admin.js';
import { auditVerifyCommand } from './commands/audit.js';
import { backupCommand, backupVerifyCommand, restoreCommand } from './commands/backup.js';
import { configCheckCommand } from './commands/config-check.js';
import { migrateCommand } from './commands/migrate.js';
import { mintInviteCommand, type MintInviteOptions } from './commands/mint-invite.js';
import { resetSetupCommand, setupCommand, setupStatusCommand } from './commands/setup.js';
import { CliFailure, ExitCode, processIo, type CliIo } from './io.js';

export { CliFailure, ExitCode, type CliIo } from './io.js';
export type { AdminKeyJson } from './commands/admin.js';
export type { AuditVerifyJson } from './commands/audit.js';
export type { ConfigCheckJson } from './commands/config-check.js';
export type { BackupJson, BackupVerifyJson, RestoreJson } from './commands/backup.js';
export type { MintInviteJson } from './commands/mint-invite.js';
export type { SetupStatusJson } from './commands/setup.js';

/** This CLI's version: `version` in examples/cli/package.json (one level above src/ and dist/). */
export const CLI_VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

const JSON_FLAG = ['--json', 'print one JSON document on stdout instead of text (errors stay on stderr)'] as const;

/** The `wallet-backend` program; reads the same environment as the reference server. */
export function buildProgram(io: CliIo, run: (work: () => Promise<void>) => void): Command {
  const program = new Command('wallet-backend')
    .description('Operator commands for Wallet Backend. Reads the same environment variables as the reference server.')
    .version(CLI_VERSION, '-V, --version', 'print the version')
    // Settings below are inherited by every subcommand: usage errors are thrown to runCli (exit 2).
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ writeOut: (text) => io.out(text.trimEnd()), writeErr: (text) => io.err(text.trimEnd()) });

  program
    .command('migrate')
    .description('apply pending database migrations (core, then each plugin)')
    .option('--status', 'list applied migrations instead of applying')
    .action((options: { status?: boolean }) => run(() => migrateCommand(io, options)));

  program
    .command('mint-invite')
    .description('create invite codes: prints each raw code once (stdout); only their sha256 is stored')
    .option('--count <n>', 'how many codes (1 to 10000)', '1')
    .option('--label <text>', 'a label stored with the codes (e.g. who they are for)')
    .option('--expires-days <n>', 'days until the codes expire (default: never)')
    .option(...JSON_FLAG)
    .action((options: MintInviteOptions) => run(() => mintInviteCommand(io, options)));

  program
    .command('setup')
    .description('first-run setup: make <pubkey> (hex or npub) the first admin, full scope, and lock the setup latch')
    .argument('<pubkey>', 'the admin\'s Nostr public key (64 hex or npub1…)')
    .action((pubkey: string) => run(() => setupCommand(io, pubkey)));

  program
    .command('setup-status')
    .description('show the setup latch (fresh, uninitialized, locked, tampered) and the number of active admins')
    .option(...JSON_FLAG)
    .action((options: { json?: boolean }) => run(() => setupStatusCommand(io, options)));

  program
    .command('reset-setup')
    .description('reopen first-run setup (locked → uninitialized); keeps admin keys, ends admin sessions')
    .option('--acknowledge', 'confirm that setup is to be reopened')
    .action((options: { acknowledge?: boolean }) => run(() => resetSetupCommand(io, options)));

  const audit = program.command('audit').description('the operator audit chain');
  audit
    .command('verify')
    .description('verify the hash chain from its newest sealed checkpoint and report the first broken link (exit 1)')
    .option('--full', 'walk the whole chain from its first entry, ignoring checkpoints')
    .option(...JSON_FLAG)
    .action((options: { json?: boolean; full?: boolean }) => run(() => auditVerifyCommand(io, options)));

  const backup = program
    .command('backup')
    .description('write a consistent backup of the database to <file> while the server runs (SQLite: VACUUM INTO; Postgres: pg_dump)')
    .argument('<file>', 'the backup file to write (mode 0600)')
    .option('--force', 'overwrite <file> if it exists')
    .option(...JSON_FLAG)
    .action((file: string, options: { force?: boolean; json?: boolean }) => run(() => backupCommand(io, file, options)));
  backup
    .command('verify')
    .description('check a backup file: integrity, migrations this version knows, the audit chain (SQLite); the archive and its migrations (pg_dump)')
    .argument('<file>', 'the backup file')
    .option(...JSON_FLAG)
    // `backup verify <file> --json`: commander gives --json to `backup`, which declares it too.
    .action((file: string, _options: unknown, command: Command) => run(() => backupVerifyCommand(io, file, { json: command.optsWithGlobals<{ json?: boolean }>().json === true })));

  program
    .command('restore')
    .description('restore a backup into the configured (empty) database, then verify its audit chain; stop the server first')
    .argument('<file>', 'a file written by `backup`')
    .option('--force', 'replace the contents of a database that is not empty')
    .option(...JSON_FLAG)
    .action((file: string, options: { force?: boolean; json?: boolean }) => run(() => restoreCommand(io, file, options)));

  const admin = program.command('admin').description('admin keys');
  admin
    .command('list')
    .description('list admin keys with their scope, state and integrity check')
    .option(...JSON_FLAG)
    .action((options: { json?: boolean }) => run(() => adminListCommand(io, options)));
  admin
    .command('revoke')
    .description('revoke an admin key (by id or public key) and end its sessions')
    .argument('<key>', 'admin key id, hex public key or npub')
    .action((key: string) => run(() => adminRevokeCommand(io, key)));

  const config = program.command('config').description('configuration tools');
  config
    .command('check')
    .description('validate the configuration the server would start with, listing every problem; ask BTCPay (when configured) whether its URL, store and key can create and view invoices')
    .option(...JSON_FLAG)
    .action((options: { json?: boolean }) => run(() => configCheckCommand(io, options)));

  return program;
}

/**
 * Runs the CLI with `argv` (without node and script); resolves to the exit code (see
 * `ExitCode`): 0 ok, 1 the check or operation failed, 2 usage error, 3 database unreachable,
 * 4 invalid configuration.
 */
export async function runCli(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  let work: (() => Promise<void>) | undefined;
  const program = buildProgram(io, (next) => {
    work = next;
  });
  try {
    await program.parseAsync([...argv], { from: 'user' });
    if (work) await work();
    return ExitCode.ok;
  } catch (err) {
    // commander has already written its message (and the help hint) to stderr. --help and
    // --version end parsing with exit code 0; every other commander error is a usage error.
    if (err instanceof CommanderError) return err.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    const failure = err instanceof CliFailure ? err : isConnectionError(err) ? databaseUnreachable(err, io.env.DATABASE_URL) : undefined;
    if (failure) {
      io.err(`error: ${failure.message}`);
      for (const line of failure.lines) io.err(`  - ${line}`);
      return failure.exitCode;
    }
    if (err instanceof WalletError) {
      io.err(`error: ${err.message} (${err.code})`);
      return ExitCode.failure;
    }
    io.err(`error: ${(err as Error).message}`);
    return ExitCode.failure;
  }
}
