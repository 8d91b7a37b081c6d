import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';

let runDir: string | undefined;

/** A database URL for a new SQLite file in this run's temporary directory. */
export function freshSqliteUrl(): string {
  runDir ??= mkdtempSync(join(tmpdir(), 'wallet-test-'));
  return `sqlite:${join(runDir, `${randomBytes(6).toString('hex')}.db`)}`;
}

export function removeSqliteFiles(): void {
  if (runDir) rmSync(runDir, { recursive: true, force: true });
  runDir = undefined;
}
