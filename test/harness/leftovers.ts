import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

/**
 * Who owns a test run's databases and temp directories, and cleaning up after runs that could not
 * (issue 29 item 12). A runner killed with SIGKILL (Stryker's timeout) runs no hook, so its
 * `wallet_test_*` database stays behind; every later run drops the leftovers of dead runs when it
 * creates its own. Names carry the owner: pid, the process's start time and a host tag, because a
 * pid alone is reused (a new process with an old run's pid would keep its database forever, or
 * worse, a dead run's pid reused by a live process of another user would look alive) and because
 * one Postgres may serve test runs of several machines, whose pids say nothing here.
 */

/** Start time of `pid` in clock ticks since boot (field 22 of /proc/<pid>/stat), or undefined without /proc. */
function procStat(pid: number): { state: string; start: number } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may itself hold spaces and parentheses.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0] ?? '', start: Number(fields[19]) };
}

const HAS_PROC = procStat(process.pid) !== undefined;

export interface Owner {
  pid: number;
  /** 0 where the start time cannot be read (no /proc): then only the pid is compared. */
  start: number;
  /** Six hex digits naming the machine. */
  host: string;
}

export const HOST_TAG = createHash('sha256').update(hostname()).digest('hex').slice(0, 6);

export const SELF: Owner = { pid: process.pid, start: procStat(process.pid)?.start ?? 0, host: HOST_TAG };

/**
 * Whether the process that made something named for `owner` may still be running. Only an owner
 * of this machine can be judged; for any other the answer is yes (never drop what may be live).
 */
export function ownerAlive(owner: Owner): boolean {
  if (owner.host !== HOST_TAG) return true;
  if (HAS_PROC) {
    const stat = procStat(owner.pid);
    // /proc mounted with hidepid hides other users' processes: ask the kernel before calling it dead.
    if (stat === undefined) return signalable(owner.pid);
    // A zombie has exited (only its parent has not read its status yet): it cleans up nothing more.
    if (stat.state === 'Z' || stat.state === 'X') return false;
    return owner.start === 0 || stat.start === owner.start;
  }
  return signalable(owner.pid);
}

/** Whether a process `pid` exists (EPERM: it does, another user's). */
function signalable(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** `wallet_test_<pid>_<start>_<host>_<random>`: 46 characters at most, within Postgres's 63. */
export function databaseName(random: string, owner: Owner = SELF): string {
  return `wallet_test_${owner.pid}_${owner.start}_${owner.host}_${random}`;
}

/**
 * The owner a `wallet_test_*` database name records. Names of the harness before owners were
 * recorded (`wallet_test_<pid>_<8 hex>`) give the pid only: they are judged by it alone, and only
 * on a server of this machine (`localServer`), the one place such a pid means anything.
 */
export function databaseOwner(name: string, localServer: boolean): Owner | undefined {
  const current = /^wallet_test_(\d+)_(\d+)_([0-9a-f]{6})_[0-9a-f]+$/.exec(name);
  if (current !== null) return { pid: Number(current[1]), start: Number(current[2]), host: current[3]! };
  const legacy = /^wallet_test_(\d+)_[0-9a-f]{8}$/.exec(name);
  if (legacy !== null && localServer) return { pid: Number(legacy[1]), start: 0, host: HOST_TAG };
  return undefined;
}

/** `wallet-test-sqlite-<pid>-<start>-<host>-`: the prefix of this run's SQLite directory (mkdtemp adds six characters). */
export function sqliteDirPrefix(owner: Owner = SELF): string {
  return `wallet-test-sqlite-${owner.pid}-${owner.start}-${owner.host}-`;
}

export function sqliteDirOwner(entry: string): Owner | undefined {
  const match = /^wallet-test-sqlite-(\d+)-(\d+)-([0-9a-f]{6})-[A-Za-z0-9]{6}$/.exec(entry);
  return match === null ? undefined : { pid: Number(match[1]), start: Number(match[2]), host: match[3]! };
}

/**
 * Drops a database synchronously, for the `exit` event (no promise runs there any more): a short
 * node process does it with the checkout's pg. The URL goes through the environment, not the
 * command line, which other users can read.
 */
export function dropDatabaseSync(adminUrl: string, name: string, cwd: string): void {
  const script = [
    "import pg from 'pg';",
    'const client = new pg.Client({ connectionString: process.env.WALLET_DROP_URL, connectionTimeoutMillis: 5000 });',
    'await client.connect();',
    'try { await client.query(`DROP DATABASE IF EXISTS "${process.env.WALLET_DROP_NAME}" WITH (FORCE)`); } finally { await client.end(); }',
  ].join('\n');
  spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd,
    env: { PATH: process.env.PATH ?? '', WALLET_DROP_URL: adminUrl, WALLET_DROP_NAME: name },
    stdio: 'ignore',
    timeout: 10_000,
  });
}

type Cleanup = { sync(): void; async(): Promise<void> };
const cleanups = new Set<Cleanup>();
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
const SIGNAL_NUMBERS: Record<(typeof SIGNALS)[number], number> = { SIGINT: 2, SIGHUP: 1, SIGTERM: 15 };

function onExit(): void {
  for (const cleanup of [...cleanups]) {
    try {
      cleanup.sync();
    } catch {
      // Exiting anyway: the next run's sweep drops what is left.
    }
  }
  cleanups.clear();
}

let stopping = false;
function onSignal(signal: (typeof SIGNALS)[number]): void {
  // A second signal while cleaning up means "now": leave the rest to the next run's sweep.
  if (stopping) process.exit(128 + SIGNAL_NUMBERS[signal]);
  stopping = true;
  const bounded = Promise.race([
    Promise.allSettled([...cleanups].map((cleanup) => cleanup.async())),
    new Promise((resolve) => setTimeout(resolve, 10_000).unref()),
  ]);
  void bounded.then(() => {
    cleanups.clear();
    uninstall();
    // Die of the signal, as the process would have without us (exit status and the parent's view).
    process.kill(process.pid, signal);
    // Another listener (mocha's, say) may keep the process alive past the signal: exit regardless.
    setTimeout(() => process.exit(128 + SIGNAL_NUMBERS[signal]), 1_000);
  });
}

const handlers = new Map<string, () => void>();
function install(): void {
  if (handlers.size > 0) return;
  handlers.set('exit', onExit);
  for (const signal of SIGNALS) handlers.set(signal, () => onSignal(signal));
  for (const [event, handler] of handlers) process.on(event, handler);
}
function uninstall(): void {
  for (const [event, handler] of handlers) process.removeListener(event, handler);
  handlers.clear();
}

/**
 * Runs `cleanup` if the process ends before the returned function is called: on exit (sync) and
 * on SIGINT/SIGTERM/SIGHUP (async, then the process dies of that signal). The handlers are only
 * installed while something is registered, so a process that never makes a database keeps
 * Node's default signal behaviour.
 */
export function cleanUpOnExit(cleanup: Cleanup): () => void {
  cleanups.add(cleanup);
  install();
  return () => {
    cleanups.delete(cleanup);
    if (cleanups.size === 0 && !stopping) uninstall();
  };
}
