import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The Node flags the reference server runs with in production: those of `npm run start:prod`
 * (package.json is their one place; the tests hold `start`, the systemd unit and the Dockerfile
 * to them, and the bench launches the server with them).
 */
export function serverNodeFlags(): string[] {
  const script = (JSON.parse(readFileSync(`${REPO_ROOT}package.json`, 'utf8')) as { scripts: Record<string, string> }).scripts['start:prod'] ?? '';
  const match = /^node((?: --[a-z-]+(?:=\d+)?)*) examples\/server\/dist\/main\.js$/.exec(script);
  if (match === null) throw new Error(`package.json start:prod is not "node [--flag[=N] ...] examples/server/dist/main.js": ${script}`);
  return match[1]!.split(' ').filter(Boolean);
}

/** A loopback port the OS just handed out as free (a fixed random range collides with ephemeral ports). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** tsx's loader, resolved from here rather than from the child's working directory (a temp dir). */
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

export interface Spawned {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (or the signal name). */
  exited: Promise<number | string>;
  /** Resolves once stdout contains `text`; rejects after `timeoutMs`. */
  waitFor(text: string, timeoutMs?: number): Promise<void>;
}

/** Node's arguments that run one of the repository's TypeScript entry points from source (tsx and the `source` condition). */
export function sourceEntryArgv(entry: string, args: readonly string[] = [], nodeFlags: readonly string[] = []): string[] {
  return [...nodeFlags, '--import', TSX_LOADER, '--conditions=wallet-source', REPO_ROOT + entry, ...args];
}

/**
 * Runs one of the repository's TypeScript entry points as a real process, from source (tsx and
 * the `source` condition, as the test run itself does), in `cwd` with exactly `env` added to PATH.
 */
export function spawnEntry(entry: string, args: string[], options: { env: Record<string, string>; cwd: string; nodeFlags?: readonly string[] }): Spawned {
  const child = spawn(process.execPath, sourceEntryArgv(entry, args, options.nodeFlags), {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? '', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitFor(text, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const started = Date.now();
        const poll = setInterval(() => {
          if (out.includes(text)) {
            clearInterval(poll);
            resolve();
          } else if (Date.now() - started > timeoutMs || child.exitCode !== null) {
            clearInterval(poll);
            reject(new Error(`"${text}" did not appear; stdout:\n${out}\nstderr:\n${err}`));
          }
        }, 25);
      });
    },
  };
}

/**
 * Skips the calling test when a tool (or the network) it needs is unavailable, printing `skipped`;
 * except in CI (`WALLET_CI=1`), where a missing tool must fail the run rather than pass it
 * unchecked: with `ciError` it throws that, without it the test goes on (and its own checks fail).
 */
export function requireTool(context: Mocha.Context, available: boolean, messages: { skipped: string; ciError?: string }): void {
  if (available) return;
  if (process.env.WALLET_CI === '1') {
    if (messages.ciError === undefined) return;
    throw new Error(messages.ciError);
  }
  console.log(messages.skipped);
  context.skip();
}

/**
 * The environment for a child npm/tsc/node run: without the npm_* variables of a surrounding
 * `npm test` (the child npm must see its own project), except the registry, cache and userconfig
 * ones and those of `keep`; then `set` on top.
 */
export function childEnv(options: { keep?: readonly string[]; set?: Record<string, string> } = {}): NodeJS.ProcessEnv {
  const keep = new Set(['npm_config_registry', 'npm_config_cache', 'npm_config_userconfig', ...(options.keep ?? [])]);
  return { ...Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.toLowerCase().startsWith('npm_') || keep.has(key.toLowerCase()))), ...options.set };
}

/** Runs `command` to its end; its exit status and everything it printed (and the spawn error, if any). */
export function runCapture(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv; timeout: number }): { status: number | null; output: string } {
  const result = spawnSync(command, args, { cwd: options.cwd, env: options.env ?? childEnv(), encoding: 'utf8', timeout: options.timeout });
  return { status: result.status, output: `${result.stdout ?? ''}${result.stderr ?? ''}${result.error ? String(result.error) : ''}` };
}

/**
 * Every file under `dir`, depth first in directory order, that `include` accepts (by path and
 * name); directories whose name `skipDir` accepts are not entered.
 */
export function filesUnder(dir: string, include: (path: string, name: string) => boolean, skipDir: (name: string) => boolean = () => false): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return skipDir(name) ? [] : filesUnder(path, include, skipDir);
    return include(path, name) ? [path] : [];
  });
}

/** This process's environment with its unset entries dropped, as `spawnEntry` takes one (a child that inherits everything). */
export function inheritedEnv(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}
