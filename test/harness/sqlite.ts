import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { cleanUpOnExit, ownerAlive, sqliteDirOwner, sqliteDirPrefix } from './leftovers.js';

let runDir: { path: string; release: () => void } | undefined;

/**
 * Removes the SQLite directories of test runs that died without removing them (see
 * leftovers.ts); returns their paths. Directories of live runs are left alone.
 */
export function removeDeadSqliteDirs(): string[] {
  const removed: string[] = [];
  for (const entry of readdirSync(tmpdir())) {
    const owner = sqliteDirOwner(entry);
    if (owner === undefined || ownerAlive(owner)) continue;
    rmSync(join(tmpdir(), entry), { recursive: true, force: true });
    removed.push(join(tmpdir(), entry));
  }
  return removed;
}

/** A database URL for a new SQLite file in this run's temporary directory. */
export function freshSqliteUrl(): string {
  if (runDir === undefined) {
    removeDeadSqliteDirs();
    const path = mkdtempSync(join(tmpdir(), sqliteDirPrefix()));
    const remove = (): void => rmSync(path, { recursive: true, force: true });
    runDir = { path, release: cleanUpOnExit({ sync: remove, async: async () => remove() }) };
  }
  return `sqlite:${join(runDir.path, `${randomBytes(6).toString('hex')}.db`)}`;
}

export function removeSqliteFiles(): void {
  if (runDir === undefined) return;
  rmSync(runDir.path, { recursive: true, force: true });
  runDir.release();
  runDir = undefined;
}
