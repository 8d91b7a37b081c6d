import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { expect } from 'chai';
import type { NostrEvent } from '@wallet/relay-admission';
import { REPO_ROOT } from '../harness/processes.js';

// The messages strfry passes on to the client in ["OK", id, false, msg], written out.
export const NEEDS_PREMIUM = 'blocked: this kind of event needs premium on this relay';
export const GIFT_WRAP_NOT_FOR_USER = 'blocked: gift wraps are accepted here only for the relay’s users';
export const NOT_A_USER = 'blocked: only the relay’s users may post here; others may send them gift-wrapped DMs';
export const UNAVAILABLE = 'error: the relay cannot check admission right now; try again later';
export const NO_DATABASE = 'wallet-relay-admission: the wallet database is needed: DATABASE_URL_FILE, DATABASE_URL (in --environment-file or the environment) or --database-url\n';

/** tsx's loader, resolved as test/harness/processes.ts does. */
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
export const BIN = 'packages/relay-admission/src/bin.ts';

/** The exact answer lines, built by hand (key order id, action, msg). */
export const accepted = (event: NostrEvent) => `{"id":"${event.id}","action":"accept","msg":""}`;
export const rejected = (event: NostrEvent, msg: string) => `{"id":"${event.id}","action":"reject","msg":"${msg}"}`;

/** A request line as strfry writes it. */
export function request(event: NostrEvent, sourceType: string, sourceInfo: string, authed?: string, type = 'new'): string {
  return JSON.stringify({ type, event, receivedAt: 1_767_225_601, sourceType, sourceInfo, ...(authed === undefined ? {} : { authed }) });
}

export interface Plugin {
  child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  exited: Promise<number | string>;
  /** Writes one line and resolves with the next answer line (rejects after `timeoutMs`). */
  ask(line: string, timeoutMs?: number): Promise<string>;
  /** Writes a line that gets no answer. */
  send(line: string): void;
}

/** The executable as strfry runs it, from the sources: a long-lived child, requests on stdin, answers on stdout. */
export function spawnPlugin(env: Record<string, string>, args: string[] = []): Plugin {
  return spawnLines(process.execPath, ['--import', TSX_LOADER, '--conditions=wallet-source', REPO_ROOT + BIN, ...args], REPO_ROOT, { PATH: process.env.PATH ?? '', ...env });
}

/** An event as nostr-rs-relay sends it to the gRPC server (raw bytes for ids, keys and the signature). */
export const eventToWire = (event: NostrEvent) => ({
  id: Buffer.from(event.id, 'hex'),
  pubkey: Buffer.from(event.pubkey, 'hex'),
  created_at: event.created_at,
  kind: event.kind,
  content: event.content,
  tags: event.tags.map((values) => ({ values })),
  sig: Buffer.from(event.sig, 'hex'),
});

/** `file args…` in `cwd` with exactly `env`, spoken to a line at a time. */
export function spawnLines(file: string, args: string[], cwd: string, env: Record<string, string>): Plugin {
  const child = spawn(file, args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  let consumed = 0;
  const waiters: Array<() => void> = [];
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    for (const wake of waiters.splice(0)) wake();
  });
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  const nextLine = (timeoutMs: number) =>
    new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer line within ${timeoutMs} ms; stdout:\n${out}\nstderr:\n${err}`)), timeoutMs);
      const check = () => {
        const end = out.indexOf('\n', consumed);
        if (end === -1) {
          waiters.push(check);
          return;
        }
        clearTimeout(timer);
        const line = out.slice(consumed, end);
        consumed = end + 1;
        resolve(line);
      };
      check();
    });
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    send: (line) => child.stdin.write(`${line}\n`),
    async ask(line, timeoutMs = 60_000) {
      expect(out.length, 'no answer is pending before a request is written').to.equal(consumed);
      child.stdin.write(`${line}\n`);
      return nextLine(timeoutMs);
    },
  };
}

