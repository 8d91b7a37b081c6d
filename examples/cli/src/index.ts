import { Command, CommanderError } from 'commander';
import { configCheckCommand } from './commands/config-check.js';
import { migrateCommand } from './commands/migrate.js';
import { mintInviteCommand, type MintInviteOptions } from './commands/mint-invite.js';
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
    io.err(`error: ${(err as Error).message}`);
    return 1;
  }
}
