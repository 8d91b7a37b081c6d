import { randomUUID } from 'node:crypto';
import { readOptionalTime, readTime, type Clock, type Database, type Knex, type PaymentProcessor, type PluginContext } from '@wallet/backend-core';
import { premiumErrors } from './errors.js';
import { PREMIUM_INVOICES_TABLE } from './migrations.js';
import type { PremiumTerms } from './options.js';
import type { InvoiceRecord, InvoiceResponse, StatusResponse } from './schemas.js';

export interface StoredInvoice {
  invoice_id: string;
  user_id: string;
  plan_id: string;
  days: number;
  amount: string;
  currency: string;
  created_at: unknown;
  expires_at: unknown;
  consumed_at: unknown;
  /** When an activation attempt first heard the processor say Settled (migration 002); null before. */
  settled_at: unknown;
}

export interface PremiumServiceDeps {
  db: Database;
  clock: Clock;
  users: PluginContext['users'];
  /** Null when no processor is configured (premium is then off: the options require one). */
  processor: PaymentProcessor | null;
  /** Null while premium is off. */
  terms: PremiumTerms | null;
}

const HISTORY_LIMIT = 50;
/** A slot taken while the processor is asked; never an id the processor gives (BTCPay ids have no colon). */
export const RESERVED_PREFIX = 'reserved:';

/** How an invoice is shown (the user's status; the operator's view adds to it). */
export function toRecord(row: StoredInvoice): InvoiceRecord {
  return {
    invoice_id: row.invoice_id,
    plan: row.plan_id,
    days: Number(row.days),
    amount: row.amount,
    currency: row.currency,
    created_at: readTime(row.created_at).toISOString(),
    expires_at: readTime(row.expires_at).toISOString(),
    activated_at: readOptionalTime(row.consumed_at)?.toISOString() ?? null,
  };
}

/**
 * Premium (spec › Premium): invoices on the processor bound to the JWT user, activation that
 * consumes a Settled invoice and extends `premium_until` in one transaction, and the status.
 */
export class PremiumService {
  constructor(private readonly deps: PremiumServiceDeps) {}

  async createInvoice(userId: string, planId: string): Promise<InvoiceResponse> {
    const { terms, processor } = this.on();
    const plan = terms.plans.find((candidate) => candidate.id === planId);
    if (plan === undefined) throw premiumErrors.create.premium_plan_unknown();
    const { db } = this.deps;
    const now = this.deps.clock.now();
    // Our clock, not the processor's: the pending cap counts by it.
    const expiresAt = new Date(now.getTime() + terms.invoiceExpiryMinutes * 60_000);
    // The slot is taken under the user's row lock BEFORE the processor is asked, so concurrent
    // requests past the cap never create invoices on the operator's processor; the reservation
    // becomes the invoice's row, or is given back if the processor fails.
    const reservation = `${RESERVED_PREFIX}${randomUUID()}`;
    await db.knex.transaction(async (trx) => {
      await this.deps.users.lock(trx, userId);
      // The relay admits premium authors by their linked Nostr key only: without one the user
      // would pay for nothing. Read under the lock, so the answer holds until the slot is taken.
      if ((await this.deps.users.nostrPubkey(userId, trx)) === null) throw premiumErrors.create.premium_nostr_not_linked();
      if ((await this.pendingCount(trx, userId)) >= terms.maxPendingInvoices) throw premiumErrors.create.premium_invoice_limit();
      await trx(PREMIUM_INVOICES_TABLE).insert({
        invoice_id: reservation,
        user_id: userId,
        plan_id: plan.id,
        days: plan.days,
        amount: plan.amount,
        currency: terms.currency,
        created_at: db.dialect.time(now),
        expires_at: db.dialect.time(expiresAt),
        consumed_at: null,
      });
    });
    let invoice;
    try {
      invoice = await processor.createInvoice({
        amount: plan.amount,
        currency: terms.currency,
        // The processor learns the plan, never who is paying.
        metadata: { orderId: `wallet-premium-${plan.id}` },
        expirationMinutes: terms.invoiceExpiryMinutes,
        confirmations: terms.confirmations,
      });
    } catch (err) {
      await db.knex(PREMIUM_INVOICES_TABLE).where({ invoice_id: reservation }).delete();
      throw err;
    }
    await db.knex(PREMIUM_INVOICES_TABLE).where({ invoice_id: reservation }).update({ invoice_id: invoice.id });
    return { invoice_id: invoice.id, plan: plan.id, days: plan.days, amount: plan.amount, currency: terms.currency, checkout_link: invoice.checkoutLink, expires_at: expiresAt.toISOString() };
  }

  /**
   * Only an invoice the processor reports `Settled` grants anything. The invoice is consumed and
   * the period extended in ONE transaction: a failure in between rolls both back and the paid
   * invoice stays redeemable; of concurrent activations exactly one consumes it.
   */
  async activate(userId: string, invoiceId: string): Promise<StatusResponse> {
    const { processor } = this.on();
    const { db, clock, users } = this.deps;
    const row = invoiceId.startsWith(RESERVED_PREFIX) ? undefined : ((await db.knex(PREMIUM_INVOICES_TABLE).where({ invoice_id: invoiceId, user_id: userId }).first()) as StoredInvoice | undefined);
    if (row === undefined) throw premiumErrors.create.premium_invoice_unknown();
    if (row.consumed_at !== null) throw premiumErrors.create.premium_invoice_used();
    const invoice = await processor.getInvoice(invoiceId);
    if (invoice === null || invoice.status !== 'Settled') throw premiumErrors.create.premium_invoice_unpaid();
    // Committed on its own, before the transaction below: if that fails, the row still says the
    // processor reported it Settled, and the operator's stuck list (settled, not consumed) shows it.
    await db.knex(PREMIUM_INVOICES_TABLE).where({ invoice_id: invoiceId, user_id: userId }).whereNull('settled_at').update({ settled_at: db.dialect.time(clock.now()) });
    await db.knex.transaction(async (trx) => {
      const consumed = await db.transitionOne(PREMIUM_INVOICES_TABLE, (qb) => qb.where({ invoice_id: invoiceId, user_id: userId }).whereNull('consumed_at'), { consumed_at: db.dialect.time(clock.now()) }, trx);
      if (consumed === null) throw premiumErrors.create.premium_invoice_used();
      // The user is gone only if erased in between; then nothing is granted and the invoice stays as it was.
      if ((await users.extendPremium(trx, userId, Number(row.days))) === null) throw premiumErrors.create.premium_invoice_unknown();
    });
    return this.status(userId);
  }

  async status(userId: string): Promise<StatusResponse> {
    const until = await this.deps.users.premiumUntil(userId);
    const nostrPubkey = await this.deps.users.nostrPubkey(userId);
    const rows = (await this.deps.db.knex(PREMIUM_INVOICES_TABLE).where({ user_id: userId }).whereNot('invoice_id', 'like', `${RESERVED_PREFIX}%`).orderBy([{ column: 'created_at', order: 'desc' }, { column: 'invoice_id' }]).limit(HISTORY_LIMIT)) as StoredInvoice[];
    const active = until !== null && until > this.deps.clock.now();
    return { active, premium_until: until?.toISOString() ?? null, nostr_pubkey: nostrPubkey, relay_premium: active && nostrPubkey !== null, invoices: rows.map(toRecord) };
  }

  async eraseUser(trx: Knex.Transaction, userId: string): Promise<void> {
    await trx(PREMIUM_INVOICES_TABLE).where({ user_id: userId }).delete();
  }

  async exportFor(userId: string): Promise<Record<string, unknown>> {
    const rows = (await this.deps.db.knex(PREMIUM_INVOICES_TABLE).where({ user_id: userId }).whereNot('invoice_id', 'like', `${RESERVED_PREFIX}%`).orderBy('created_at')) as StoredInvoice[];
    return { premium_until: (await this.deps.users.premiumUntil(userId))?.toISOString() ?? null, invoices: rows.map(toRecord) };
  }

  private on(): { terms: PremiumTerms; processor: PaymentProcessor } {
    const { terms, processor } = this.deps;
    if (terms === null || processor === null) throw premiumErrors.create.premium_off();
    return { terms, processor };
  }

  private async pendingCount(executor: Knex | Knex.Transaction, userId: string): Promise<number> {
    const row = (await executor(PREMIUM_INVOICES_TABLE)
      .where({ user_id: userId })
      .whereNull('consumed_at')
      .where('expires_at', '>', this.deps.db.dialect.time(this.deps.clock.now()))
      .count({ n: '*' })
      .first()) as { n: number | string };
    // An aggregate without GROUP BY always answers one row.
    return Number(row.n);
  }
}
