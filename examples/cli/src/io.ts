import type { Env } from '@wallet/server';

/** Where a command reads its environment and writes its output; tests pass their own. */
export interface CliIo {
  env: Env;
  out(line: string): void;
  err(line: string): void;
}

export const processIo: CliIo = {
  env: process.env,
  out: (line) => process.stdout.write(line + '\n'),
  err: (line) => process.stderr.write(line + '\n'),
};

/**
 * The CLI's exit codes (documented in docs/operators.md, "The CLI"). Scripts may rely on them:
 * add new classes, never renumber.
 */
export const ExitCode = {
  /** The command did what it was asked. */
  ok: 0,
  /** The command ran and its check or operation failed: a broken audit chain, a row that failed its integrity check, a refused setup, an unmigrated database, an invalid configuration under `config check`. */
  failure: 1,
  /** The command line is wrong: unknown command or option, missing or extra argument, a bad option value, a missing confirmation flag. Nothing was done. */
  usage: 2,
  /** The database at DATABASE_URL cannot be reached or opened (refused, unknown host, timeout, authentication, an SQLite file that cannot be created or opened). */
  databaseUnreachable: 3,
  /** The configuration the server would start with is invalid (the command did not run). */
  invalidConfiguration: 4,
} as const;

export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** A failure the CLI reports as one clear message (and optional detail lines) with its exit code (1 unless given). */
export class CliFailure extends Error {
  constructor(
    message: string,
    readonly lines: readonly string[] = [],
    readonly exitCode: ExitCode = ExitCode.failure,
  ) {
    super(message);
    this.name = 'CliFailure';
  }
}

/** A command line the CLI refuses before doing anything: exit code 2. */
export function usageError(message: string, lines: readonly string[] = []): CliFailure {
  return new CliFailure(message, lines, ExitCode.usage);
}

/** Writes `document` as one JSON document (one line) on stdout. */
export function printJson(io: CliIo, document: unknown): void {
  io.out(JSON.stringify(document));
}
