import type { TestBackend, TestResponse } from '../harness/index.js';
import { FAKE_STORE_ID, type GreenfieldFake } from '../fakes/greenfield.js';
import type { FakeHandler, FakeReply, FakeRequest } from '../fakes/http-fake.js';
import { usePremiumWorld, type PremiumWorld } from './harness.js';

export const DAY_MS = 86_400_000;
export const INVOICES_PATH = `/api/v1/stores/${FAKE_STORE_ID}/invoices`;

export interface Party {
  userId: string;
  token: string;
}

export type Answer = TestResponse<{ error?: { code?: string } } & Record<string, any>>;

export const codeOf = (response: Answer) => response.body?.error?.code;
const outcome = (response: Answer) => (response.status === 200 ? '200' : `${response.status} ${codeOf(response)}`);

/** How many answers of each outcome (`200`, `400 premium_invoice_used`, …). */
export function tally(responses: Answer[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const response of responses) counts[outcome(response)] = (counts[outcome(response)] ?? 0) + 1;
  return counts;
}

export function api(w: { t: TestBackend }, who: Party) {
  return {
    /** A new session at the clock's time (access tokens lapse when the clock moves by days). */
    relogin: async () => {
      who.token = (await w.t.backend.sessions.start(who.userId, 'extension')).access_token;
    },
    invoice: (plan: unknown) => w.t.client.post('/api/v1/premium/invoice', { plan }, { token: who.token }) as Promise<Answer>,
    activate: (invoice_id: unknown) => w.t.client.post('/api/v1/premium/activate', { invoice_id }, { token: who.token }) as Promise<Answer>,
    status: () => w.t.client.get('/api/v1/premium/status', { token: who.token }) as Promise<Answer>,
  };
}

/** The world with its probe (every world has one now). */
export type ProbedWorld = PremiumWorld;
export const useProbedPremiumWorld = usePremiumWorld;

/**
 * Holds every request a handler receives until `expected` of them are held at once, then lets
 * them all through: when the gate opens, that many requests were in flight together (held, not
 * timed). `maxHeld` is the proof; after `giveUpMs` the gate opens anyway so a failure is an
 * assertion, not a hang.
 */
export function gate(expected: number, giveUpMs = 15_000) {
  let held = 0;
  let maxHeld = 0;
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const timer = setTimeout(open, giveUpMs);
  opened.then(() => clearTimeout(timer), () => undefined);
  return {
    wrap(inner: (req: FakeRequest, body: unknown) => FakeReply | Promise<FakeReply>): FakeHandler {
      return async (req, body) => {
        held += 1;
        maxHeld = Math.max(maxHeld, held);
        if (held >= expected) open();
        await opened;
        held -= 1;
        return inner(req, body);
      };
    },
    open: () => open(),
    get maxHeld() {
      return maxHeld;
    },
  };
}

/** The fake's own handler of invoice reads (its fallback), gated; returns the restore. */
export function gateInvoiceReads(btcpay: GreenfieldFake, g: ReturnType<typeof gate>): () => void {
  const original = btcpay.fallback!;
  btcpay.fallback = g.wrap(original);
  return () => {
    g.open();
    btcpay.fallback = original;
  };
}

/** The fake's own invoice creation, gated; returns the restore. */
export function gateInvoiceCreation(btcpay: GreenfieldFake, g: ReturnType<typeof gate>): () => void {
  const key = `POST ${INVOICES_PATH}`;
  const original = btcpay['routes'].get(key)!;
  btcpay.route(key, g.wrap(original));
  return () => {
    g.open();
    btcpay.route(key, original);
  };
}
