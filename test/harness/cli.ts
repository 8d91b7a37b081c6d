import { runCli, type CliIo } from '@wallet/cli';
import { TEST_SECRETS } from './backend.js';

/** A CLI io that records stdout and stderr lines. */
export function captureIo(env: Record<string, string>): CliIo & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { env, out: (l) => stdout.push(l), err: (l) => stderr.push(l), stdout, stderr };
}

/** Runs the CLI in-process with `env`: its exit code and its output, as lines and joined. */
export async function cli(env: Record<string, string>, ...argv: string[]) {
  const io = captureIo(env);
  const code = await runCli(argv, io);
  return { code, stdout: io.stdout, stderr: io.stderr, out: io.stdout.join('\n'), err: io.stderr.join('\n') };
}

/** The test secrets as environment variables: a CLI run and a test backend then agree on every MAC. */
export const SECRETS_ENV = {
  JWT_SECRET: TEST_SECRETS.jwtSecret,
  PEPPER_SECRET: TEST_SECRETS.pepperSecret,
  IP_HASH_SALT: TEST_SECRETS.ipHashSalt,
  ADMIN_KEY_INTEGRITY_SECRET: TEST_SECRETS.adminKeyIntegritySecret,
  ADMIN_SESSION_SECRET: TEST_SECRETS.adminSessionSecret,
} as const;
