import { randomBytes, randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { tipAddress } from '@wallet/client';
import { readFileSync } from 'node:fs';
import { REPO_ROOT } from '../../harness/processes.js';
import type { AuthPair } from '../http/fixtures.js';

/** The operations of the mixed load, in the order each worker cycles through them. */
export const MIX = ['register', 'refresh', 'tip', 'relay', 'login', 'refresh', 'tip', 'relay'] as const;
export type Operation = (typeof MIX)[number];

/** A real slatepack (grin-wallet output), as the relay tests use it. */
const SLATEPACK = (JSON.parse(readFileSync(`${REPO_ROOT}test/fixtures/grin-slatepacks.json`, 'utf8')) as { owner_rpc: string }).owner_rpc;

export interface Answer {
  op: Operation;
  status: number;
  /** The upstream index the proxy names when that upstream broke the request after it was sent. */
  broken: number | undefined;
  /** When the request was sent and answered (ms since the load began). */
  sentAt: number;
  answeredAt: number;
  /** The first bytes of a 5xx answer's body. */
  body?: string;
}

/** Writes the service acknowledged (2xx), to look for afterwards. */
export interface Acknowledged {
  users: string[];
  tips: string[];
  relays: string[];
  /** Each worker's newest acknowledged session: its refresh token must still refresh. */
  sessions: AuthPair[];
}

export interface MixedLoadInput {
  url: string;
  workers: number;
  durationMs: number;
  /** One session per worker. */
  sessions: AuthPair[];
  /** Pre-signed extension-login bodies of keys never seen (each a registration), used once each. */
  registrations: string[];
  /** Pre-signed extension-login bodies of registered keys (each a login), used once each. */
  logins: string[];
  /** A registered user, the recipient of every relay entry. */
  recipientId: string;
  /** Called every `tickMs` with the time since the load began (to kill or stop a replica). */
  onTick?: (elapsedMs: number) => void | Promise<void>;
}

export interface MixedLoadResult {
  answers: Answer[];
  acknowledged: Acknowledged;
  elapsedMs: number;
  /** Operations skipped for want of a pre-signed body (a refresh ran instead). */
  unsigned: number;
}

const agent = new Agent({ keepAlive: true, maxSockets: 512 });

/** One request over the load's keep-alive pool (or, from `localAddress`, a connection of its own); never rejects: a failed request is status 0. */
export function send(url: string, method: string, path: string, body: string | undefined, token: string | undefined, localAddress?: string): Promise<{ status: number; text: string; broken: number | undefined }> {
  return new Promise((resolve) => {
    const target = new URL(path, url);
    const headers: Record<string, string> = {};
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(Buffer.byteLength(body));
    }
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    const req = request({ host: target.hostname, port: target.port, method, path: target.pathname + target.search, headers, ...(localAddress === undefined ? { agent } : { localAddress }) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const header = res.headers['x-proxy-broken'];
        resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString(), broken: typeof header === 'string' ? Number(header) : undefined });
      });
      res.on('error', () => resolve({ status: 0, text: 'response aborted', broken: undefined }));
    });
    req.on('error', (err) => resolve({ status: 0, text: String(err), broken: undefined }));
    req.end(body);
  });
}


/**
 * Closed-loop mixed load through `url` (the proxy): `workers` loops, each with its own session,
 * cycling registrations, logins, refreshes, draft tips and Grin relay entries until `durationMs`.
 * Every answer is kept with its time; every acknowledged write is recorded.
 */
export async function mixedLoad(input: MixedLoadInput): Promise<MixedLoadResult> {
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  const answers: Answer[] = [];
  const acknowledged: Acknowledged = { users: [], tips: [], relays: [], sessions: [...input.sessions] };
  let unsigned = 0;
  const registrations = [...input.registrations];
  const logins = [...input.logins];

  const worker = async (w: number) => {
    let turn = w;
    /** Set when this worker's session may be gone: its next operations are logins until one is acknowledged. */
    let needsSession = false;
    while (elapsed() < input.durationMs) {
      let op: Operation = needsSession ? 'login' : MIX[turn++ % MIX.length]!;
      let body: string | undefined;
      if (op === 'register' || op === 'login') {
        body = (op === 'register' ? registrations : logins).pop();
        if (body === undefined && needsSession) throw new Error('replicas bench: no pre-signed login left to replace a broken session');
        if (body === undefined) {
          unsigned++;
          op = 'refresh';
        }
      }
      const session = acknowledged.sessions[w]!;
      const sentAt = elapsed();
      let reply: { status: number; text: string; broken: number | undefined };
      if (op === 'register' || op === 'login') {
        reply = await send(input.url, 'POST', '/api/v1/auth/extension', body, undefined);
        if (reply.status === 200 && op === 'register') acknowledged.users.push((JSON.parse(reply.text) as AuthPair).user_id);
        if (reply.status === 200 && op === 'login' && needsSession) {
          acknowledged.sessions[w] = JSON.parse(reply.text) as AuthPair;
          needsSession = false;
        }
      } else if (op === 'refresh') {
        reply = await send(input.url, 'POST', '/api/v1/auth/refresh', JSON.stringify({ refresh_token: session.refresh_token }), undefined);
        if (reply.status === 200) acknowledged.sessions[w] = { ...(JSON.parse(reply.text) as AuthPair), user_id: session.user_id };
      } else if (op === 'tip') {
        const tip = { asset: 'btc', amount: '50000', tip_address: tipAddress(bytesToHex(secp256k1.utils.randomSecretKey()), 'bc'), secret_hash: randomBytes(32).toString('hex'), draft: true };
        reply = await send(input.url, 'POST', '/api/v1/tips/social', JSON.stringify(tip), session.access_token);
        if (reply.status === 200) acknowledged.tips.push((JSON.parse(reply.text) as { tip_id: string }).tip_id);
      } else {
        const slateId = randomUUID();
        const entry = { recipient_user_id: input.recipientId, slate_id: slateId, slatepack: SLATEPACK, amount_nanogrin: 1_000_000_000 };
        reply = await send(input.url, 'POST', '/api/v1/wallet/grin/relay/create', JSON.stringify(entry), session.access_token);
        if (reply.status === 200 || reply.status === 201) acknowledged.relays.push(slateId);
      }
      answers.push({ op, status: reply.status, broken: reply.broken, sentAt, answeredAt: elapsed(), ...(reply.status >= 500 || reply.status === 0 ? { body: reply.text.slice(0, 300) } : {}) });
      // A refresh broken in flight may or may not have rotated: that session is done with.
      if (op === 'refresh' && reply.status !== 200) needsSession = true;
    }
  };

  let ticking = true;
  const ticker = (async () => {
    while (ticking) {
      await input.onTick?.(elapsed());
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  await Promise.all(Array.from({ length: input.workers }, (_, w) => worker(w)));
  ticking = false;
  await ticker;
  return { answers, acknowledged, elapsedMs: elapsed(), unsigned };
}
