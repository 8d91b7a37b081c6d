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

/** A failure the CLI reports as one clear message and exit code 1. */
export class CliFailure extends Error {
  constructor(
    message: string,
    readonly lines: readonly string[] = [],
  ) {
    super(message);
    this.name = 'CliFailure';
  }
}
