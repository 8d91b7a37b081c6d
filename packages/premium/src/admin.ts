import { nextAfter, readOptionalTime, readTime, type Clock, type Database, type Knex, type PageCursor, type PluginContext } from '@wallet/backend-core';
import { premiumErrors } from './errors.js';
import { PREMIUM_INVOICES_TABLE } from './migrations.js';
import type { AdminInvoice, AdminInvoicesResponse, AdminUserResponse, InvoiceState, StateCounts } from './schemas.js';
import { RESERVED_PREFIX, toRecord, type StoredInvoice } from './service.js';

export interface PremiumAdminDeps {
  db: Database;
  clock: Clock;
  users: PluginContext['users'];
}

/** Every activation of one user in the history answer, newest first; activations are paid, so few. */
const ACTIVATIONS_LIMIT = 500;

const COLUMNS = ['invoice_id', 'user_id', 'plan_id', 'days', 'amount', 'currency', 'created_at', 'expires_at', 'settled_at', 'consumed_at'] as const;

function stateOf(row: StoredInvoice, now: Date): InvoiceState {
  if (row.consumed_at !== null) return 'activated';
  if (row.settled_at !== null) return 'settled_unactivated';
  return readTime(row.expires_at) > now ? 'pending' : 'expired';
}

/** The user's record of the invoice (`toRecord`, in its order) with whose it is, its state and when it was heard Settled. */
function toAdminInvoice(row: StoredInvoice, now: Date): AdminInvoice {
  const { invoice_id, activated_at, ...terms } = toRecord(row);
  return {
    invoice_id,
    user_id: row.user_id,
    state: stateOf(row, now),
    ...terms,
    settled_at: readOptionalTime(row.settled_at)?.toISOString() ?? null,
    activated_at,
  };
}

/**
 * The operator's read-only view of premium (issue 34): invoices by state across users, one
 * user's history, and the user summary section. States are what this server recorded (see
 * `INVOICE_STATES`); nothing here asks the processor.
 */
export class PremiumAdmin {
  constructor(private readonly deps: PremiumAdminDeps) {}

  /** Invoices in `state` (every state when undefined), newest first, a page at a time. */
  async listInvoices(state: InvoiceState | undefined, limit: number, after: PageCursor | undefined): Promise<AdminInvoicesResponse> {
    const now = this.deps.clock.now();
    return this.page(now, limit, after, (qb) => {
      if (state !== undefined) this.whereState(qb, state, now);
    });
  }

  /** One user's premium history; 404 `premium_user_not_found` for an id no user has. */
  async userHistory(userId: string, limit: number, after: PageCursor | undefined): Promise<AdminUserResponse> {
    const { clock, users } = this.deps;
    if (!(await users.exists(userId))) throw premiumErrors.create.premium_user_not_found();
    const now = clock.now();
    const until = await users.premiumUntil(userId);
    const { counts, daysActivated } = await this.tally(userId, now);
    const activated = (await this.invoices()
      .where({ user_id: userId })
      .whereNotNull('consumed_at')
      .orderBy([{ column: 'consumed_at', order: 'desc' }, { column: 'invoice_id', order: 'desc' }])
      .limit(ACTIVATIONS_LIMIT)) as StoredInvoice[];
    const invoices = await this.page(now, limit, after, (qb) => void qb.where({ user_id: userId }));
    return {
      user_id: userId,
      premium_until: until?.toISOString() ?? null,
      active: until !== null && until > now,
      invoice_counts: counts,
      days_activated: daysActivated,
      activations: activated.map((row) => ({ invoice_id: row.invoice_id, plan: row.plan_id, days: Number(row.days), activated_at: readTime(row.consumed_at).toISOString() })),
      ...invoices,
    };
  }

  /** The premium section of the operator's view of an account (`onUserSummary`). */
  async userSummary(userId: string): Promise<{ premium_until: string | null; active: boolean; invoices: StateCounts }> {
    const now = this.deps.clock.now();
    const until = await this.deps.users.premiumUntil(userId);
    return { premium_until: until?.toISOString() ?? null, active: until !== null && until > now, invoices: (await this.tally(userId, now)).counts };
  }

  /** Invoices that are real processor invoices (never a slot reserved while the processor is asked). */
  private invoices(): Knex.QueryBuilder {
    return this.deps.db.knex(PREMIUM_INVOICES_TABLE).select(COLUMNS).whereNot('invoice_id', 'like', `${RESERVED_PREFIX}%`);
  }

  /** The state's condition, written as the partial indexes of migration 002 are. */
  private whereState(qb: Knex.QueryBuilder, state: InvoiceState, now: Date): void {
    const time = this.deps.db.dialect.time(now);
    if (state === 'activated') qb.whereNotNull('consumed_at');
    else if (state === 'settled_unactivated') qb.whereNull('consumed_at').whereNotNull('settled_at');
    else if (state === 'pending') qb.whereNull('consumed_at').whereNull('settled_at').where('expires_at', '>', time);
    else qb.whereNull('consumed_at').whereNull('settled_at').where('expires_at', '<=', time);
  }

  private async page(now: Date, limit: number, after: PageCursor | undefined, filter: (qb: Knex.QueryBuilder) => void): Promise<AdminInvoicesResponse> {
    const qb = this.invoices();
    filter(qb);
    if (after !== undefined) {
      const time = this.deps.db.dialect.time(after.at);
      // A row-value comparison (both dialects): the index range starts right after the cursor.
      qb.whereRaw('(created_at, invoice_id) < (?, ?)', [time, after.id]);
    }
    const rows = (await qb.orderBy([{ column: 'created_at', order: 'desc' }, { column: 'invoice_id', order: 'desc' }]).limit(limit + 1)) as StoredInvoice[];
    return {
      invoices: rows.slice(0, limit).map((row) => toAdminInvoice(row, now)),
      next_after: nextAfter(rows, limit, (row) => ({ at: readTime(row.created_at), id: row.invoice_id })),
    };
  }

  /** The user's invoices counted by state, and the days their activations added, in one read. */
  private async tally(userId: string, now: Date): Promise<{ counts: StateCounts; daysActivated: number }> {
    const time = this.deps.db.dialect.time(now);
    const row = (await this.deps.db
      .knex(PREMIUM_INVOICES_TABLE)
      .where({ user_id: userId })
      .whereNot('invoice_id', 'like', `${RESERVED_PREFIX}%`)
      .select(
        this.deps.db.knex.raw('sum(case when consumed_at is null and settled_at is null and expires_at > ? then 1 else 0 end) as pending', [time]),
        this.deps.db.knex.raw('sum(case when consumed_at is null and settled_at is null and expires_at <= ? then 1 else 0 end) as expired', [time]),
        this.deps.db.knex.raw('sum(case when consumed_at is null and settled_at is not null then 1 else 0 end) as settled_unactivated'),
        this.deps.db.knex.raw('sum(case when consumed_at is not null then 1 else 0 end) as activated'),
        this.deps.db.knex.raw('sum(case when consumed_at is not null then days else 0 end) as days_activated'),
      )
      .first()) as Record<string, number | string | null>;
    // An aggregate without GROUP BY answers one row; SUM over no rows is NULL.
    const n = (key: string) => Number(row[key] ?? 0);
    return {
      counts: { pending: n('pending'), expired: n('expired'), settled_unactivated: n('settled_unactivated'), activated: n('activated') },
      daysActivated: n('days_activated'),
    };
  }
}
