import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { TEST_SECRETS } from '../../harness/backend.js';
import { freePort, REPO_ROOT, serverNodeFlags, sourceEntryArgv } from '../../harness/processes.js';

/** A server process the bench started and identified by its own ready line. */
export interface ServerChild {
  name: string;
  child: ChildProcess;
  pid: number;
  url: string;
  stderr(): string;
  /** The last error and warning lines it logged on stdout. */
  problems(): string[];
  /** Throws (with the child's stderr) if the process has exited since it was ready. */
  assertAlive(): void;
  stop(): Promise<void>;
}

const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/** The log levels whose lines are kept to explain a failed run, as text and as the bytes stdout is scanned for. */
const PROBLEM_LEVELS = ['"level":"error"', '"level":"warn"'];
const PROBLEM_MARKS = PROBLEM_LEVELS.map((level) => Buffer.from(level));

/**
 * Waits for the first stdout line that `ready` accepts, reading stdout to the end as a log
 * collector would. Rejects with the child's stderr when it exits first or after `timeoutMs`.
 *
 * Past the ready line, stdout is only scanned, as bytes, for error and warning lines: the load
 * generator runs in this process's event loop, and splitting and decoding every request's log
 * line here (thousands a second) took CPU from it while the server logging them was measured.
 */
function identify(name: string, child: ChildProcess, ready: (line: string) => boolean, timeoutMs: number): Promise<{ stderr: () => string; problems: () => string[] }> {
  let errors = '';
  // The last few error and warning log lines, kept to explain a failed run; every other line is dropped.
  const problems: string[] = [];
  child.stderr!.on('data', (chunk: Buffer) => {
    errors += chunk.toString();
    if (errors.length > 64_000) errors = errors.slice(-32_000);
  });
  return new Promise((resolve, reject) => {
    let done = false;
    const finish = (err?: Error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (err) reject(err);
      else resolve({ stderr: () => errors, problems: () => [...problems] });
    };
    const timer = setTimeout(() => finish(new Error(`${name}: no ready line within ${timeoutMs} ms\nstderr:\n${errors}`)), timeoutMs);
    // The unfinished last line of the previous chunk (bounded: a line is a few hundred bytes).
    let carry: Buffer = Buffer.alloc(0);
    child.stdout!.on('data', (chunk: Buffer) => {
      const end = chunk.lastIndexOf(0x0a);
      if (end === -1) {
        carry = Buffer.concat([carry, chunk]).subarray(-64_000);
        return;
      }
      const whole = carry.length === 0 ? chunk.subarray(0, end) : Buffer.concat([carry, chunk.subarray(0, end)]);
      carry = Buffer.from(chunk.subarray(end + 1));
      const scanned = !done || PROBLEM_MARKS.some((mark) => whole.includes(mark));
      if (!scanned) return;
      for (const line of whole.toString().split('\n')) {
        if (PROBLEM_LEVELS.some((level) => line.includes(level))) {
          problems.push(line.slice(0, 2_000));
          if (problems.length > 10) problems.shift();
        }
        if (!done && ready(line)) finish();
      }
    });
    child.once('exit', (code, signal) => finish(new Error(`${name} exited (${code ?? signal}) before it was ready\nstderr:\n${errors}`)));
  });
}

function handle(name: string, child: ChildProcess, url: string, { stderr, problems }: { stderr: () => string; problems: () => string[] }): ServerChild {
  live.add(child);
  return {
    name,
    child,
    pid: child.pid!,
    url,
    stderr,
    problems,
    assertAlive() {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${name} (pid ${child.pid}) exited (${child.exitCode ?? child.signalCode}) during the bench\nstderr:\n${stderr()}`);
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      live.delete(child);
    },
  };
}

/**
 * A server process with piped output and no reader of its own: `identify` is its one reader, so
 * its request log lines are scanned as bytes, never collected (both servers log every request).
 */
function spawnServer(argv: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, argv, { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Node flags from an environment variable: space-separated, empty when unset. */
function flagsFrom(value: string | undefined): string[] {
  return (value ?? '').split(' ').filter(Boolean);
}

/** A loopback port that was free when bind-tested just now. */
export async function checkedPort(): Promise<number> {
  return freePort();
}

export interface WalletLaunch {
  /** `dist`: examples/server/dist/main.js (built by `tsc -b`); `source`: examples/server/src/main.ts through tsx. */
  entry: 'dist' | 'source';
  env: Record<string, string>;
  port: number;
  timeoutMs?: number;
  /** Node flags, instead of BENCH_WALLET_FLAGS or start:prod's. */
  flags?: string[];
}

/**
 * The reference server, identified by ITS OWN `"msg":"listening"` JSON line naming the url we
 * asked for: a different process answering on that port would never print it.
 */
export async function launchWallet(options: WalletLaunch): Promise<ServerChild> {
  const url = `http://127.0.0.1:${options.port}`;
  // BENCH_WALLET_NODE_OPTIONS adds NODE_OPTIONS (a memory experiment, say).
  const flags = options.flags ?? walletNodeFlags();
  const nodeOptions: Record<string, string> = process.env.BENCH_WALLET_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_WALLET_NODE_OPTIONS } : {};
  const env = { ...options.env, ...nodeOptions, PORT: String(options.port), HOST: '127.0.0.1' };
  const argv = options.entry === 'source' ? sourceEntryArgv('examples/server/src/main.ts', [], flags) : [...flags, `${REPO_ROOT}examples/server/dist/main.js`];
  const child = spawnServer(argv, env);
  live.add(child);
  const identified = await identify(
    'wallet server',
    child,
    (line) => {
      if (!line.includes('"msg":"listening"')) return false;
      try {
        return (JSON.parse(line) as { url?: unknown }).url === url;
      } catch {
        return false;
      }
    },
    options.timeoutMs ?? 60_000,
  );
  return handle('wallet server', child, url, identified);
}

/** The wallet's Node flags: those `npm run start:prod` runs with, or BENCH_WALLET_FLAGS in their place. */
export function walletNodeFlags(): string[] {
  return process.env.BENCH_WALLET_FLAGS !== undefined ? flagsFrom(process.env.BENCH_WALLET_FLAGS) : serverNodeFlags();
}

/**
 * The bare server's Node flags: the wallet's, so both run on the same runtime settings (heap
 * bounds included, without which their memory could not be compared), unless BENCH_BARE_FLAGS
 * gives its own (empty: Node's defaults, as before 2026-11-29; `--cpu-prof`, say).
 */
export function bareNodeFlags(): string[] {
  return process.env.BENCH_BARE_FLAGS !== undefined ? flagsFrom(process.env.BENCH_BARE_FLAGS) : walletNodeFlags();
}

/**
 * The bare server, from its plain-JavaScript bundle (`bareServerBundle`), identified by its ready
 * line carrying its own pid and the url we asked for.
 */
export async function launchBare(bundle: string, env: Record<string, string>, port: number, timeoutMs = 60_000): Promise<ServerChild> {
  const url = `http://127.0.0.1:${port}`;
  const child = spawnServer([...bareNodeFlags(), bundle], { ...env, PORT: String(port) });
  live.add(child);
  const identified = await identify(
    'bare server',
    child,
    (line) => {
      try {
        const ready = JSON.parse(line) as { msg?: unknown; pid?: unknown; url?: unknown };
        return ready.msg === 'bare ready' && ready.pid === child.pid && ready.url === url;
      } catch {
        return false;
      }
    },
    timeoutMs,
  );
  return handle('bare server', child, url, identified);
}

const STATUS_LINES = { VmRSS: /VmRSS:\s+(\d+)\s+kB/, VmHWM: /VmHWM:\s+(\d+)\s+kB/ } as const;

/** A memory line of /proc/<pid>/status (Linux), in MB; null when unreadable. */
function statusMb(pid: number, field: keyof typeof STATUS_LINES): number | null {
  try {
    const kb = STATUS_LINES[field].exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? null : Math.round((Number(kb) / 1024) * 10) / 10;
  } catch {
    return null;
  }
}

/** The process's resident set now, in MB (/proc); null when unreadable. */
export const rssMb = (pid: number): number | null => statusMb(pid, 'VmRSS');

/** The largest resident set the process has had (VmHWM), in MB (/proc); null when unreadable. */
export const peakRssMb = (pid: number): number | null => statusMb(pid, 'VmHWM');

/** Clock ticks per second of /proc/<pid>/stat's utime and stime (USER_HZ: 100 on every Linux build in use). */
const USER_HZ = 100;

/** CPU the process has used so far (user + system), in ms, from /proc (Linux); null when unreadable. */
export function cpuMs(pid: number): number | null {
  try {
    // Fields after the command name (which may hold spaces, hence the last ')'): utime is the 12th, stime the 13th.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / USER_HZ;
  } catch {
    return null;
  }
}

/** Samples `pid`'s RSS every `everyMs` until stopped; returns the maximum seen. */
export function sampleRss(pid: number, everyMs = 250): { stop(): number | null } {
  let max: number | null = rssMb(pid);
  const timer = setInterval(() => {
    const now = rssMb(pid);
    if (now !== null && (max === null || now > max)) max = now;
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      const now = rssMb(pid);
      if (now !== null && (max === null || now > max)) max = now;
      return max;
    },
  };
}

/**
 * The reference server's environment for a bench: the test secrets (so an in-process backend on
 * the same database shares them), a limiter that never throttles the load, the scheduler off
 * unless `extra` turns it on.
 */
export const walletEnv = (databaseUrl: string, publicApiUrl: string, dataDir: string, extra: Record<string, string> = {}): Record<string, string> => ({
  DATABASE_URL: databaseUrl,
  PUBLIC_API_URL: publicApiUrl,
  DATA_DIR: dataDir,
  JWT_SECRET: TEST_SECRETS.jwtSecret,
  PEPPER_SECRET: TEST_SECRETS.pepperSecret,
  IP_HASH_SALT: TEST_SECRETS.ipHashSalt,
  ADMIN_KEY_INTEGRITY_SECRET: TEST_SECRETS.adminKeyIntegritySecret,
  ADMIN_SESSION_SECRET: TEST_SECRETS.adminSessionSecret,
  RATE_LIMIT_MAX: '1000000',
  SCHEDULER_ENABLED: 'false',
  ...extra,
});
