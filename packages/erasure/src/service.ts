import { randomUUID } from 'node:crypto';
import { isUniqueViolation, nextAfter, PreparedStatement, readOptionalTime, readTime, type Clock, type Database, type Knex, type Logger, type PluginContext } from '@wallet/backend-core';
import { erasureErrors } from './errors.js';
import { ERASURE_TABLE, SWEEP_RUN_TABLE } from './migrations.js';
import { CONFIRM_WINDOW_MS, SWEEP_BATCH } from './options.js';
import { ERASURE_STATUS, LIVE_STATUSES, PURPOSE, type ErasurePurpose, type ErasureStatus } from './request.js';
import type { AdminRequestsQuery, AdminRequestsResponse, ErasureResponse, ExportResponse, ProofRequest, StuckResponse, SweepRunResponse } from './schemas.js';

/** The freeze check every login of every account runs (`guardSession`). */
const CONFIRMED_REQUEST = new PreparedStatement<{ userId: string; status: string }>('erasure_confirmed_request', (knex, param) =>
  knex(ERASURE_TABLE).select('id').where({ user_id: param('userId'), status: param('status') }).first(),
);

interface StoredRequest {
  id: string;
  user_id: string | null;
  status: string;
  created_at: unknown;
  confirmed_at: unknown;
  due_at: unknown;
  ended_at: unknown;
  attempts: number | string;
  last_error: string | null;
  integrity: string | null;
}

export interface ErasureServiceDeps {
  db: Database;
  clock: Clock;
  users: PluginContext['users'];
  auth: PluginContext['auth'];
  audit: PluginContext['audit'];
  hooks: PluginContext['hooks'];
  /** Seals a confirmed request (the sweeper erases only a request sealed with the server's secret). */
  crypto: PluginContext['crypto'];
  enabled: boolean;
  graceMs: number;
  loginEvents: 'purge' | 'anonymize';
}

export interface SweepReport {
  completed: number;
  failed: number;
  expired: number;
}

/** The account view's erasure section (`ctx.hooks.onUserSummary`): the user's newest request. */
export interface ErasureSummary {
  state: 'none' | ErasureStatus;
  requested_at: string | null;
  /** Set while the newest request is confirmed: when it is carried out. */
  due_at: string | null;
}

interface StoredSweepRun {
  started_at: unknown;
  finished_at: unknown;
  due_found: number | string;
  completed: number | string;
  failed: number | string;
  expired: number | string;
}

const EXPORT_FORMAT = 'wallet-backend-export/1' as const;
/** Scrubbed audit entries named (seq and former hash) in the completion entry; the count is always exact. */
const MAX_LISTED_SCRUBS = 100;
const iso = (value: unknown) => readOptionalTime(value)?.toISOString() ?? null;

/**
 * Self-service erasure and export (spec › Account erasure and export). Every action is a fresh
 * signed action (NIP-98 with nonce, purpose and request descriptor; the nonce is consumed only
 * after the signature checks) and reaches only the user whose linked Nostr key made it. A key
 * that belongs to no user gets 200 with the same shapes and nothing stored; where an account
 * would get an error or its live request, it gets a fresh id or an echo (docs/erasure.md lists
 * each difference; only the key's holder can see them).
 */
export class ErasureService {
  constructor(private readonly deps: ErasureServiceDeps) {}

  async challenge(purpose: ErasurePurpose): Promise<{ nonce: string; purpose: string; expires_at: string }> {
    this.requireOn();
    const issued = await this.deps.auth.challenges.issue(purpose);
    return { nonce: issued.nonce, purpose: issued.purpose, expires_at: issued.expiresAt.toISOString() };
  }

  async request(proof: ProofRequest): Promise<ErasureResponse> {
    const userId = await this.prove(proof, PURPOSE.request, 'POST', '/account/erasure');
    const now = this.deps.clock.now();
    if (userId === null) return { erasure_id: randomUUID(), status: ERASURE_STATUS.requested, confirm_by: new Date(now.getTime() + CONFIRM_WINDOW_MS).toISOString(), due_at: null };
    const { db } = this.deps;
    const live = await this.liveOf(userId);
    if (live !== null) return this.view(live);
    const row = { id: randomUUID(), user_id: userId, status: ERASURE_STATUS.requested, created_at: db.dialect.time(now), attempts: 0 };
    try {
      await db.knex(ERASURE_TABLE).insert(row);
    } catch (err) {
      // Two requests at once: the one-live index lets one in; both answer with it.
      if (!isUniqueViolation(err)) throw err;
      const winner = await this.liveOf(userId);
      if (winner !== null) return this.view(winner);
      throw err;
    }
    return this.view({ ...row, due_at: null });
  }

  /** Confirms and revokes every live session of the user in one transaction. */
  async confirm(erasureId: string, proof: ProofRequest): Promise<ErasureResponse> {
    const userId = await this.prove(proof, PURPOSE.confirm, 'POST', `/account/erasure/${erasureId}/confirm`);
    const now = this.deps.clock.now();
    if (userId === null) return { erasure_id: erasureId, status: ERASURE_STATUS.confirmed, confirm_by: null, due_at: new Date(now.getTime() + this.deps.graceMs).toISOString() };
    const { db, auth, graceMs } = this.deps;
    const row = await this.ownRow(erasureId, userId);
    if (row.status === ERASURE_STATUS.confirmed) return this.view(row);
    const dueAt = new Date(now.getTime() + graceMs);
    const confirmed = await db.knex.transaction(async (trx) => {
      // The same lock as the session guard's: a login either stores its session before this
      // (and the revocation below ends it) or sees the request confirmed. A refresh share-locks
      // this row in its one statement: it rotates before this (the revocation ends its
      // successor) or waits and finds its session revoked.
      await this.deps.users.lock(trx, userId);
      const moved = await db.transitionOne<StoredRequest>(
        ERASURE_TABLE,
        (qb) => qb.where({ id: erasureId, user_id: userId, status: ERASURE_STATUS.requested }).where('created_at', '>', db.dialect.time(new Date(now.getTime() - CONFIRM_WINDOW_MS))),
        { status: ERASURE_STATUS.confirmed, confirmed_at: db.dialect.time(now), due_at: db.dialect.time(dueAt), integrity: this.seal(erasureId, userId, dueAt) },
        trx,
      );
      if (moved !== null) await auth.sessions.revokeAllForUser(userId, trx);
      return moved;
    });
    if (confirmed !== null) return this.view(confirmed);
    const again = await this.ownRow(erasureId, userId);
    if (again.status === ERASURE_STATUS.confirmed) return this.view(again);
    throw erasureErrors.create.erasure_not_confirmable();
  }

  /**
   * The session guard (core's `auth.addSessionGuard`): a confirmed request freezes its account
   * until it is cancelled or carried out, so no login path opens a session. Locks the user's row
   * first, as `confirm` does, so the two cannot interleave. A refresh runs it only to say why its
   * rotation failed: what stops refreshes is the revocation at confirmation (and, after erasure
   * was off, `revokeFrozenSessions`).
   */
  async guardSession(userId: string, trx: Knex.Transaction): Promise<void> {
    if (await this.frozen(userId, trx)) throw erasureErrors.create.account_erasure_pending();
  }

  /** Whether the user has a confirmed request, read with the user's row locked (as `confirm` locks it) until `trx` ends. */
  private async frozen(userId: string, trx: Knex.Transaction): Promise<boolean> {
    await this.deps.users.lock(trx, userId);
    return (await CONFIRMED_REQUEST.first(trx, { userId, status: ERASURE_STATUS.confirmed })) !== undefined;
  }

  /** Allowed while requested, or confirmed and before its due time. */
  async cancel(erasureId: string, proof: ProofRequest): Promise<ErasureResponse> {
    const userId = await this.prove(proof, PURPOSE.cancel, 'DELETE', `/account/erasure/${erasureId}`);
    if (userId === null) return { erasure_id: erasureId, status: ERASURE_STATUS.cancelled, confirm_by: null, due_at: null };
    const { db, clock } = this.deps;
    const now = db.dialect.time(clock.now());
    await this.ownRow(erasureId, userId);
    const cancelled = await db.transitionOne<StoredRequest>(
      ERASURE_TABLE,
      (qb) =>
        qb
          .where({ id: erasureId, user_id: userId })
          .where((inner) => inner.where({ status: ERASURE_STATUS.requested }).orWhere((confirmed) => confirmed.where({ status: ERASURE_STATUS.confirmed }).where('due_at', '>', now))),
      { status: ERASURE_STATUS.cancelled, ended_at: now },
    );
    if (cancelled !== null) return this.view(cancelled);
    const row = await this.ownRow(erasureId, userId);
    if (row.status === ERASURE_STATUS.cancelled) return this.view(row);
    throw erasureErrors.create.erasure_not_cancellable();
  }

  /** Everything the service holds about the user (core and every plugin), audited. */
  async exportData(proof: ProofRequest): Promise<ExportResponse> {
    const userId = await this.prove(proof, PURPOSE.export, 'POST', '/account/export');
    const exportedAt = this.deps.clock.now().toISOString();
    if (userId === null) return { format: EXPORT_FORMAT, exported_at: exportedAt, sections: {} };
    const sections = await this.deps.hooks.collectUserExport(userId);
    await this.deps.db.knex.transaction((trx) => this.deps.audit.append(trx, { action: 'account_exported', actorKind: 'user', target: `user:${userId}` }));
    return { format: EXPORT_FORMAT, exported_at: exportedAt, sections };
  }

  /** The user's erasure requests, for the export. */
  async exportFor(userId: string): Promise<Record<string, unknown>> {
    const rows = (await this.deps.db.knex(ERASURE_TABLE).where({ user_id: userId }).orderBy('created_at')) as StoredRequest[];
    return { requests: rows.map((row) => this.view(row)) };
  }

  async stuck(): Promise<StuckResponse> {
    const now = this.deps.clock.now();
    const rows = (await this.deps.db.knex(ERASURE_TABLE).where({ status: ERASURE_STATUS.confirmed }).where('due_at', '<=', this.deps.db.dialect.time(now)).orderBy('due_at').limit(200)) as StoredRequest[];
    return {
      requests: rows.map((row) => {
        const due = readTime(row.due_at);
        return { erasure_id: row.id, due_at: due.toISOString(), overdue_sec: Math.floor((now.getTime() - due.getTime()) / 1000), attempts: Number(row.attempts), last_error: row.last_error };
      }),
    };
  }

  /**
   * One state's requests, newest first (the (status, created_at, id) index), a page of `limit`
   * after the cursor. Times and counts only: never the integrity seal, and the user's id only
   * while the account exists (a completed request's row has none).
   */
  async adminRequests(query: AdminRequestsQuery): Promise<AdminRequestsResponse> {
    const { db } = this.deps;
    const page = db.knex(ERASURE_TABLE).where({ status: query.state });
    const { after } = query;
    if (after !== undefined) {
      const at = db.dialect.time(after.at);
      page.where((older) => older.where('created_at', '<', at).orWhere((same) => same.where('created_at', '=', at).where('id', '<', after.id)));
    }
    const rows = (await page
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(query.limit + 1)
      .select('id', 'user_id', 'status', 'created_at', 'confirmed_at', 'due_at', 'ended_at', 'attempts', 'last_error')) as StoredRequest[];
    return {
      requests: rows.slice(0, query.limit).map((row) => {
        const ended = (status: ErasureStatus) => (row.status === status ? iso(row.ended_at) : null);
        return {
          erasure_id: row.id,
          status: row.status as ErasureStatus,
          user_id: row.user_id,
          requested_at: readTime(row.created_at).toISOString(),
          confirmed_at: iso(row.confirmed_at),
          due_at: iso(row.due_at),
          completed_at: ended(ERASURE_STATUS.completed),
          cancelled_at: ended(ERASURE_STATUS.cancelled),
          expired_at: ended(ERASURE_STATUS.expired),
          attempts: Number(row.attempts),
          last_error: row.last_error,
        };
      }),
      next_after: nextAfter(rows, query.limit, (row) => ({ at: readTime(row.created_at), id: row.id })),
    };
  }

  /** The sweeper's last finished run (nulls when none has finished) and the next due time now. */
  async lastSweep(): Promise<SweepRunResponse> {
    const { knex } = this.deps.db;
    const run = (await knex(SWEEP_RUN_TABLE).where({ id: 1 }).first()) as StoredSweepRun | undefined;
    const next = (await knex(ERASURE_TABLE).where({ status: ERASURE_STATUS.confirmed }).orderBy('due_at').first('due_at')) as { due_at: unknown } | undefined;
    return {
      started_at: iso(run?.started_at),
      finished_at: iso(run?.finished_at),
      due_found: run === undefined ? null : Number(run.due_found),
      completed: run === undefined ? null : Number(run.completed),
      failed: run === undefined ? null : Number(run.failed),
      expired: run === undefined ? null : Number(run.expired),
      next_due_at: iso(next?.due_at),
    };
  }

  /** The user's newest request (the (user_id, created_at) index), for the operator's account view. */
  async summaryOf(userId: string): Promise<ErasureSummary> {
    const row = (await this.deps.db
      .knex(ERASURE_TABLE)
      .where({ user_id: userId })
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .first('status', 'created_at', 'due_at')) as Pick<StoredRequest, 'status' | 'created_at' | 'due_at'> | undefined;
    if (row === undefined) return { state: 'none', requested_at: null, due_at: null };
    return { state: row.status as ErasureStatus, requested_at: readTime(row.created_at).toISOString(), due_at: row.status === ERASURE_STATUS.confirmed ? iso(row.due_at) : null };
  }

  /**
   * Ends every live session of a frozen account, each under the user's row lock as `confirm`
   * takes it; returns how many. There are none unless erasure was off after a confirmation (its
   * logins were not frozen then): a refresh is stopped by revocation, not by the guard, so the
   * sweep runs this first, within seconds of a process with erasure on starting.
   */
  async revokeFrozenSessions(): Promise<number> {
    const { db, auth } = this.deps;
    const confirmedUsers = (await db.knex(ERASURE_TABLE).distinct('user_id').where({ status: ERASURE_STATUS.confirmed })) as Array<{ user_id: string }>;
    let ended = 0;
    for (const { user_id: userId } of confirmedUsers) {
      ended += await db.knex.transaction(async (trx) => ((await this.frozen(userId, trx)) ? auth.sessions.revokeAllForUser(userId, trx) : 0));
    }
    return ended;
  }

  /**
   * The sweeper: expires unconfirmed requests, then erases due confirmed ones, each in ONE
   * transaction that holds the request row (skip-locked on Postgres, so a second sweeper takes
   * another row or none): plugin hooks, the audit scrub, the account with its login events,
   * the tombstone and the `account_erasure_completed` entry. Any failure rolls all of it back and
   * the request stays due (attempts and the error are recorded for `/admin/erasure/stuck`).
   * A run that returns is recorded for `/admin/erasure/sweep` afterwards, when it holds nothing.
   */
  async sweep(logger: Logger): Promise<SweepReport> {
    const startedAt = this.deps.clock.now();
    const { report, due } = await this.sweepDue(startedAt, logger);
    await this.recordRun(startedAt, due, report, logger);
    return report;
  }

  private async sweepDue(now: Date, logger: Logger): Promise<{ report: SweepReport; due: number }> {
    const { db } = this.deps;
    const expired = await this.expireUnconfirmed(now);
    const report: SweepReport = { completed: 0, failed: 0, expired };
    const due = await this.countDue(now);
    if (due === 0) return { report, due };
    const stopped = await this.stopOnBrokenChain(now, logger);
    if (stopped > 0) return { report: { ...report, failed: stopped }, due };
    const tried: string[] = [];
    for (let i = 0; i < SWEEP_BATCH; i++) {
      let claimed: StoredRequest | null = null;
      try {
        await db.knex.transaction(async (trx) => {
          const query = trx(ERASURE_TABLE).where({ status: ERASURE_STATUS.confirmed }).where('due_at', '<=', db.dialect.time(now)).whereNotIn('id', tried).orderBy([{ column: 'due_at' }, { column: 'id' }]).limit(1);
          const row = (await db.dialect.lockRowsSkipLocked(query))[0] as StoredRequest | undefined;
          if (row === undefined) return;
          claimed = row;
          await this.execute(trx, row, now);
        });
      } catch (err) {
        const row = claimed as StoredRequest | null;
        if (row === null) throw err;
        tried.push(row.id);
        report.failed += 1;
        const message = `${(err as Error).name}: ${(err as Error).message}`.slice(0, 500);
        logger.error('account erasure failed; nothing was erased and it is retried at the next sweep', { erasure_id: row.id, error: message });
        await db.knex(ERASURE_TABLE).where({ id: row.id, status: ERASURE_STATUS.confirmed }).increment('attempts', 1).update({ last_error: message });
        continue;
      }
      if (claimed === null) break;
      report.completed += 1;
      logger.info('account erased', { erasure_id: (claimed as StoredRequest).id });
    }
    return { report, due };
  }

  /** Confirmed requests due at `now`: one count on the (status, due_at, id) index, the sweep's only look before it claims. */
  private async countDue(now: Date): Promise<number> {
    const { db } = this.deps;
    const row = (await db.knex(ERASURE_TABLE).where({ status: ERASURE_STATUS.confirmed }).where('due_at', '<=', db.dialect.time(now)).count({ n: '*' }).first()) as { n: number | string } | undefined;
    return Number(row?.n ?? 0);
  }

  /**
   * Replaces the one-row record of the last run: one statement of its own, after every erasure
   * transaction ended. A failure to record is logged and changes nothing the run did.
   */
  private async recordRun(startedAt: Date, due: number, report: SweepReport, logger: Logger): Promise<void> {
    const { db, clock } = this.deps;
    const run = { id: 1, started_at: db.dialect.time(startedAt), finished_at: db.dialect.time(clock.now()), due_found: due, completed: report.completed, failed: report.failed, expired: report.expired };
    try {
      await db.knex(SWEEP_RUN_TABLE).insert(run).onConflict('id').merge();
    } catch (err) {
      logger.error('the erasure sweep ran but its record (GET /admin/erasure/sweep) could not be written', { error: `${(err as Error).name}: ${(err as Error).message}`.slice(0, 500) });
    }
  }

  /**
   * Verifies the audit chain once per sweep, and only when a request is due: a chain that does
   * not verify stops every erasure (none is claimed, nothing is appended), and each due request
   * gets an attempt and the reason, for `/admin/erasure/stuck`. How many were stopped (0: go on).
   */
  private async stopOnBrokenChain(now: Date, logger: Logger): Promise<number> {
    const { db, audit } = this.deps;
    const due = () => db.knex(ERASURE_TABLE).where({ status: ERASURE_STATUS.confirmed }).where('due_at', '<=', db.dialect.time(now));
    const verdict = await audit.verify();
    if (verdict.ok) return 0;
    const reason = `the audit chain does not verify (entry ${verdict.brokenAt}: ${verdict.reason}); no erasure runs until it does`;
    // The verdict's reasons are fixed texts and numbers: well under the column's 500 characters.
    const stopped = await due().increment('attempts', 1).update({ last_error: `Error: ${reason}` });
    logger.error('account erasures stopped; nothing was erased', { reason, due: stopped });
    return stopped;
  }

  private async execute(trx: Knex.Transaction, row: StoredRequest, now: Date): Promise<void> {
    const { db, users, hooks, audit, loginEvents } = this.deps;
    const userId = row.user_id;
    // A confirmed row the server did not seal (written into the database by anyone else) erases nothing.
    if (userId !== null && row.integrity !== this.seal(row.id, userId, readTime(row.due_at))) {
      throw new Error('the erasure request is not sealed by this server (its integrity check failed); nothing was erased');
    }
    let scrubbed: Array<{ seq: number; row_hash: string }> = [];
    if (userId !== null) {
      await hooks.runUserErasure(trx, userId);
      scrubbed = await audit.redact(trx, userId);
      await users.erase(trx, userId, { loginEvents });
    }
    const done = await db.transitionOne(ERASURE_TABLE, (qb) => qb.where({ id: row.id, status: ERASURE_STATUS.confirmed }), { status: ERASURE_STATUS.completed, ended_at: db.dialect.time(now), user_id: null, last_error: null }, trx);
    if (done === null) throw new Error('the erasure request changed while it was being carried out');
    // Between this sweep's check of the whole chain and now, the newest entry is what could have changed.
    await audit.append(trx, { action: 'account_erasure_completed', actorKind: 'system', target: `erasure:${row.id}`, details: { audit_entries_scrubbed: scrubbed.length, scrubbed: scrubbed.slice(0, MAX_LISTED_SCRUBS), login_events: loginEvents } }, { onlyOntoIntact: true });
  }

  /** The server's seal over what the sweeper acts on: the request, its user and its due time. */
  private seal(erasureId: string, userId: string, dueAt: Date): string {
    return this.deps.crypto.pepper(`erasure_request:${erasureId}:${userId}:${dueAt.toISOString()}`);
  }

  /** Verifies the signed action and resolves its key to a user (null: no user has it). */
  private async prove(proof: ProofRequest, purpose: ErasurePurpose, method: string, path: string): Promise<string | null> {
    this.requireOn();
    const { pubkey } = await this.deps.auth.signedActions.verify({ token: proof.nostr_token, nonce: proof.nonce, purpose, path, method, subject: null });
    return this.deps.users.idByNostrPubkey(pubkey);
  }

  /** The user's live request; an unconfirmed one past its window is expired here rather than at the next sweep. */
  private async liveOf(userId: string): Promise<StoredRequest | null> {
    await this.expireUnconfirmed(this.deps.clock.now(), userId);
    const row = (await this.deps.db.knex(ERASURE_TABLE).where({ user_id: userId }).whereIn('status', LIVE_STATUSES).first()) as StoredRequest | undefined;
    return row ?? null;
  }

  /** Requests left unconfirmed past their window become `expired` (all of them, or one user's); the number moved. */
  private async expireUnconfirmed(now: Date, userId?: string): Promise<number> {
    const { db } = this.deps;
    const query = db.knex(ERASURE_TABLE).where({ status: ERASURE_STATUS.requested }).where('created_at', '<=', db.dialect.time(new Date(now.getTime() - CONFIRM_WINDOW_MS)));
    if (userId !== undefined) query.where({ user_id: userId });
    return query.update({ status: ERASURE_STATUS.expired, ended_at: db.dialect.time(now) });
  }

  private async ownRow(erasureId: string, userId: string): Promise<StoredRequest> {
    const row = (await this.deps.db.knex(ERASURE_TABLE).where({ id: erasureId, user_id: userId }).first()) as StoredRequest | undefined;
    if (row === undefined) throw erasureErrors.create.erasure_not_found();
    return row;
  }

  private view(row: Pick<StoredRequest, 'id' | 'status' | 'created_at' | 'due_at'>): ErasureResponse {
    const created = readTime(row.created_at).getTime();
    return {
      erasure_id: row.id,
      status: row.status,
      confirm_by: row.status === ERASURE_STATUS.requested ? new Date(created + CONFIRM_WINDOW_MS).toISOString() : null,
      // Only a confirmed request has a due time to tell (a cancelled one answers null, as a key without an account gets).
      due_at: row.status === ERASURE_STATUS.confirmed ? iso(row.due_at) : null,
    };
  }

  private requireOn(): void {
    if (!this.deps.enabled) throw erasureErrors.create.erasure_off();
  }
}
