import { Command, CommanderError } from 'commander';
import { WalletError } from '@wallet/backend-core';
import { adminListCommand, adminRevokeCommand } from './commands/admin.js';
import { auditVerifyCommand } from './commands/audit.js';
import { configCheckCommand } from './commands/config-check.js';
import { migrateCommand } from './commands/migrate.js';
import { mintInviteCommand, type MintInviteOptions } from './commands/mint-invite.js';
import { resetSetupCommand, setupCommand, setupStatusCommand } from './commands/setup.js';
import { CliFailure, processIo, type CliIo } from './io.js';

export { CliFailure, type CliIo } from './io.js';

/** The `wallet-backend` program; reads the same environment as the reference server. */
export function buildProgram(io: CliIo, run: (work: () => Promise<void>) => void): Command {
  const program = new Command('wallet-backend')
    .description('Operator commands for Wallet Backend. Reads the same environment variables as the reference server.')
    .exitOverride()
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
    .action((options: MintInviteOptions) => run(() => mintInviteCommand(io, options)));

  program
    .command('setup')
    .description('first-run setup: make <pubkey> (hex or npub) the first admin, full scope, and lock the setup latch')
    .argument('<pubkey>', 'the admin\'s Nostr public key (64 hex or npub1…)')
    .action((pubkey: string) => run(() => setupCommand(io, pubkey)));

  program
    .command('setup-status')
    .description('show the setup latch (fresh, uninitialized, locked, tampered) and the number of active admins')
    .action(() => run(() => setupStatusCommand(io)));

  program
    .command('reset-setup')
    .description('reopen first-run setup (locked → uninitialized); keeps admin keys, ends admin sessions')
    .option('--acknowledge', 'confirm that setup is to be reopened')
    .action((options: { acknowledge?: boolean }) => run(() => resetSetupCommand(io, options)));

  const audit = program.command('audit').description('the operator audit chain');
  audit
    .command('verify')
    .description('walk the hash chain and report the first broken link (exit 1)')
    .action(() => run(() => auditVerifyCommand(io)));

  const admin = program.command('admin').description('admin keys');
  admin
    .command('list')
    .description('list admin keys with their scope, state and integrity check')
    .action(() => run(() => adminListCommand(io)));
  admin
    .command('revoke')
    .description('revoke an admin key (by id or public key) and end its sessions')
    .argument('<key>', 'admin key id, hex public key or npub')
    .action((key: string) => run(() => adminRevokeCommand(io, key)));

  const config = program.command('config').description('configuration tools');
  config
    .command('check')
    .description('validate the configuration the server would start with, listing every problem')
    .action(() => run(() => configCheckCommand(io)));

  return program;
}

/** Runs the CLI with `argv` (without node and script); resolves to the exit code. */
export async function runCli(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  let work: (() => Promise<void>) | undefined;
  const program = buildProgram(io, (next) => {
    work = next;
  });
  try {
    await program.parseAsync([...argv], { from: 'user' });
    if (work) await work();
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode;
    if (err instanceof CliFailure) {
      io.err(`error: ${err.message}`);
      for (const line of err.lines) io.err(`  - ${line}`);
      return 1;
    }
    if (err instanceof WalletError) {
      io.err(`error: ${err.message} (${err.code})`);
      return 1;
    }
    io.err(`error: ${(err as Error).message}`);
    return 1;
  }
}
