import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer, type AddressInfo } from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The Node flags the reference server runs with in production: those of `npm run start:prod`
 * (package.json is their one place; the tests hold `start`, the systemd unit and the Dockerfile
 * to them, and the bench launches the server with them).
 */
export function serverNodeFlags(): string[] {
  const script = (JSON.parse(readFileSync(`${REPO_ROOT}package.json`, 'utf8')) as { scripts: Record<string, string> }).scripts['start:prod'] ?? '';
  const match = /^node((?: --[a-z-]+=\d+)*) examples\/server\/dist\/main\.js$/.exec(script);
  if (match === null) throw new Error(`package.json start:prod is not "node [--flag=N ...] examples/server/dist/main.js": ${script}`);
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

/**
 * Runs one of the repository's TypeScript entry points as a real process, from source (tsx and
 * the `source` condition, as the test run itself does), in `cwd` with exactly `env` added to PATH.
 */
export function spawnEntry(entry: string, args: string[], options: { env: Record<string, string>; cwd: string; nodeFlags?: readonly string[] }): Spawned {
  const child = spawn(process.execPath, [...(options.nodeFlags ?? []), '--import', TSX_LOADER, '--conditions=wallet-source', REPO_ROOT + entry, ...args], {
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
