import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type autocannon from 'autocannon';
import { REPO_ROOT } from '../../harness/processes.js';
import type { Seeded } from './fixtures.js';
import type { LoadSpec } from './load.js';

/** What an endpoint's spec builder gets for one run. */
export interface RunContext {
  seeded: Seeded;
  connections: number;
  durationSec: number;
  /** The req/s this endpoint last reached on this server (warm-up or earlier run), if any. */
  lastRps: number | undefined;
}

export interface Endpoint {
  /** Short id used in the table and the JSON. */
  id: string;
  /** The request as documented. */
  label: string;
  /** Minimum wallet/bare ratio, or null for report-only. */
  target: number | null;
  /** A fresh spec for one run (tokens and bodies are single-use for some endpoints). */
  spec(run: RunContext): Promise<LoadSpec>;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** A real slatepack (grin-wallet output), as the relay tests use it. */
const SLATEPACK = (JSON.parse(readFileSync(`${REPO_ROOT}test/fixtures/grin-slatepacks.json`, 'utf8')) as { owner_rpc: string }).owner_rpc;

/** The rewind hash of the Grin scan vectors (test/core/chains/grin.test.ts uses the same batch). */
export const GRIN_SCAN_BATCH = (
  JSON.parse(readFileSync(`${REPO_ROOT}test/vectors/grin/scan-rewind-hash.json`, 'utf8')) as {
    scan_batches: Array<{ coinbase_maturity: number; rewind_hash: string; outputs: Array<{ commit: string; proof: string; is_coinbase: boolean; height: number; mmr_index: number }> }>;
  }
).scan_batches.find((batch) => batch.coinbase_maturity === 1440)!;

interface IteratorInternals {
  requestIterator: { initialContext: Record<string, unknown>; resetContext(): void; rebuildRequest(): void };
}

/**
 * Refresh chains, one session per connection. autocannon 8 resets a connection's `context` to
 * `initialContext` every time it loops over `requests` (lib/requestIterator.js), i.e. before
 * every request when there is one, so a token stored in the context would be lost. Each
 * connection therefore gets its own holder in its OWN initialContext when it is made
 * (`setupClient`; autocannon's deep clone keeps functions by reference), and the context carries
 * a getter for it: `onResponse` stores the rotated token there, `setupRequest` sends it next.
 */
function refreshSpec(sessions: string[]): LoadSpec {
  let handedOut = 0;
  let rotations = 0;
  type Holder = { token: string };
  const holderOf = (context: Record<string, unknown>) => (typeof context.holder === 'function' ? (context.holder as () => Holder)() : undefined);
  return {
    method: 'POST',
    path: '/api/v1/auth/refresh',
    setupClient(client) {
      const token = sessions[handedOut++];
      if (token === undefined) throw new Error('bench: more connections than refresh sessions');
      const holder: Holder = { token };
      const iterator = (client as unknown as IteratorInternals).requestIterator;
      iterator.initialContext = { holder: () => holder };
      iterator.resetContext();
      // The first request was built before this connection had a session: build it again.
      iterator.rebuildRequest();
    },
    setupRequest(request, context) {
      return { ...request, body: JSON.stringify({ refresh_token: holderOf(context)?.token ?? 'no-session-yet' }) };
    },
    onResponse(status, body, context) {
      const holder = holderOf(context);
      if (status === 200 && holder !== undefined) {
        holder.token = (JSON.parse(body) as { refresh_token: string }).refresh_token;
        rotations++;
      }
    },
    notes: () => ({ sessions: handedOut, rotations }),
  };
}

export const ENDPOINTS: Endpoint[] = [
  {
    id: 'health',
    label: 'GET /api/v1/health',
    target: 1.0,
    spec: async () => ({ method: 'GET', path: '/api/v1/health' }),
  },
  {
    id: 'me',
    label: 'GET /api/v1/auth/me',
    target: 1.0,
    spec: async ({ seeded }) => ({ method: 'GET', path: '/api/v1/auth/me', headers: bearer(seeded.main.access_token) }),
  },
  {
    id: 'nip05',
    label: 'GET /.well-known/nostr.json?name=',
    target: 1.0,
    spec: async ({ seeded }) => ({ method: 'GET', path: `/.well-known/nostr.json?name=${seeded.main.username}` }),
  },
  {
    id: 'username',
    label: 'GET /api/v1/usernames/{username}',
    target: 1.0,
    spec: async ({ seeded }) => ({ method: 'GET', path: `/api/v1/usernames/${seeded.main.username}` }),
  },
  {
    id: 'user-keys',
    label: 'GET /api/v1/users/{id}/keys',
    target: 1.0,
    spec: async ({ seeded }) => ({ method: 'GET', path: `/api/v1/users/${seeded.main.user_id}/keys` }),
  },
  {
    id: 'refresh',
    label: 'POST /api/v1/auth/refresh',
    target: 1.0,
    spec: async ({ seeded, connections }) => refreshSpec((await seeded.logins.sessions(connections)).map((pair) => pair.refresh_token)),
  },
  {
    id: 'extension',
    label: 'POST /api/v1/auth/extension',
    target: 1.0,
    spec: async ({ seeded, connections, durationSec, lastRps }) => {
      // Pre-signed before the run: enough for 1.5× the rate last seen (1000 req/s before any; the pool is topped up by signing in the load generator, counted), plus slack.
      const size = Math.ceil((lastRps ?? 1_000) * durationSec * 1.5) + 2 * connections;
      const bodies = await seeded.logins.pool(size);
      let used = 0;
      let signedDuringRun = 0;
      let exhausted = 0;
      return {
        method: 'POST',
        path: '/api/v1/auth/extension',
        setupRequest(request: autocannon.Request) {
          let body = bodies[used++];
          if (body === undefined) {
            // The pool ran dry: sign in the load generator (counted, so the run can be judged).
            body = seeded.logins.next() ?? undefined;
            if (body === undefined) exhausted++;
            else signedDuringRun++;
          }
          return { ...request, body: body ?? '{"exhausted":true}' };
        },
        notes: () => ({ presigned: bodies.length, used: Math.min(used, bodies.length), signedDuringRun, exhausted }),
      };
    },
  },
  {
    id: 'relay-create',
    label: 'POST /api/v1/wallet/grin/relay/create',
    target: null,
    spec: async ({ seeded }) => {
      const prefix = JSON.stringify({ recipient_user_id: seeded.recipient.user_id, slatepack: SLATEPACK, amount_nanogrin: '1500000000' }).slice(0, -1);
      return {
        method: 'POST',
        path: '/api/v1/wallet/grin/relay/create',
        headers: bearer(seeded.main.access_token),
        setupRequest: (request) => ({ ...request, body: `${prefix},"slate_id":"${randomUUID()}"}` }),
      };
    },
  },
  {
    id: 'grin-scan',
    label: 'POST /api/v1/wallet/grin/scan',
    target: null,
    spec: async ({ seeded }) => ({
      method: 'POST',
      path: '/api/v1/wallet/grin/scan',
      headers: bearer(seeded.main.access_token),
      body: JSON.stringify({ rewind_hash: GRIN_SCAN_BATCH.rewind_hash, start_index: 1 }),
    }),
  },
];
