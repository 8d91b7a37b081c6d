import { connect, createJsonLogger, type Knex, type Logger } from '@wallet/backend-core/database';
import { performance } from 'node:perf_hooks';
import { verifyEvent } from 'nostr-tools/pure';
import { eventShapeProblem, isPubkeyHex, taggedPubkeys, type NostrEvent } from './event.js';
import { Membership, type Standing } from './membership.js';
import { ACCEPT, decide, GIFT_WRAP_KIND, MAX_GIFT_WRAP_RECIPIENTS, unavailable, type AdmissionDecision, type AuthorStanding } from './policy.js';
import { DatabaseStalled, StallWatch } from './stall.js';
import { ThreadReader } from './thread-reader.js';

export interface RelayAdmissionOptions {
  /** The wallet database, as a knex instance you own (closed by you) … */
  knex?: Knex;
  /** … or its URL (`postgres://…`, `sqlite:…`, as DATABASE_URL), opened and closed by the hook. A read-only role is enough. */
  databaseUrl?: string;
  /** `premium-post` (default): the spec's admission table. `open`: every well-formed event is accepted. */
  writePolicy?: 'premium-post' | 'open';
  /**
   * Check each event's id and signature (default true). strfry and nostr-rs-relay verify before
   * they ask, so their adapters turn this off; a host that has not verified must leave it on.
   */
  verifySignatures?: boolean;
  /** How long a user's standing is reused, in ms (default 10 000; 0 reads the database for every event). A premium lapse is exact regardless. */
  cacheTtlMs?: number;
  /**
   * A database read slower than this refuses the event (default 2000 ms): the relay must never
   * wait on the wallet. After one such read, events whose standing is not cached are refused at
   * once until the database answers again (one probe read at a time finds out).
   */
  timeoutMs?: number;
  /** The clock (tests). */
  now?: () => Date;
  /** Where the hook reports database failures (default: JSON lines on stderr). Never an event's content. */
  logger?: Logger;
}

/** What the relay tells the hook besides the event; informational (the decision is by author and kind). */
export interface AdmissionContext {
  /** The pubkey authenticated on the connection by NIP-42, if any. */
  authedPubkey?: string;
  ip?: string;
}

export interface RelayAdmission {
  /** Accept or refuse, in NIP-01 `OK` terms. Never throws: any failure refuses (fails closed). */
  admit(event: unknown, context?: AdmissionContext): Promise<AdmissionDecision>;
  /**
   * The same decision, returned at once when it needs no database read (every standing it rests
   * on is cached: most events), else a promise of it. For adapters that answer one event at a time
   * (strfry's plugin), where a promise and a timer per cached event were a measurable share of
   * its cost. Never throws.
   */
  admitNow(event: unknown, context?: AdmissionContext): AdmissionDecision | Promise<AdmissionDecision>;
  close(): Promise<void>;
}

export const ADMISSION_DEFAULTS = { writePolicy: 'premium-post', verifySignatures: true, cacheTtlMs: 10_000, timeoutMs: 2_000 } as const;

/** While the database is stalled: how long a probe read is waited on, at most how often one is sent, and when an unanswered one stops counting. */
const PROBE_WAIT_MS = 20;
const PROBE_INTERVAL_MS = 250;
/** How many due standings one background re-read asks for (well inside either dialect's bound parameters). */
const REFRESH_BATCH = 500;
/** How long the first due standing waits for others to fall due and share its re-read (at most a quarter of the cache's TTL). */
const REFRESH_COALESCE_MS = 1_000;
/** A SQLite read waits this long on a locked file: the driver blocks the process meanwhile, so it must stay far below a decision's budget. */
const LOCKED_FILE_WAIT_MS = 10;

const stderrLogger = () => createJsonLogger({ write: (line) => process.stderr.write(`${line}\n`), bindings: { component: 'relay-admission' } });

/**
 * The relay admission hook (spec › Events 4): the `premium-post` write policy over the wallet
 * database, by npub only, failing closed.
 *
 * @example
 * const admission = createRelayAdmission({ databaseUrl: process.env.DATABASE_URL });
 * const { accept, message } = await admission.admit(event);
 */
export function createRelayAdmission(options: RelayAdmissionOptions): RelayAdmission {
  if ((options.knex === undefined) === (options.databaseUrl === undefined)) throw new Error('createRelayAdmission needs exactly one of knex or databaseUrl');
  const logger = options.logger ?? stderrLogger();
  const owned = options.databaseUrl === undefined ? null : connect(options.databaseUrl, 4, logger, { sqliteReader: { busyTimeoutMs: LOCKED_FILE_WAIT_MS } });
  const knex = options.knex ?? owned!.knex;
  const clock = options.now;
  const policy = options.writePolicy ?? ADMISSION_DEFAULTS.writePolicy;
  const verify = options.verifySignatures ?? ADMISSION_DEFAULTS.verifySignatures;
  const timeoutMs = options.timeoutMs ?? ADMISSION_DEFAULTS.timeoutMs;
  const now = clock === undefined ? Date.now : () => clock().getTime();
  // A driver that answers in this thread reads on a thread of its own, so a stuck file never stops the plugin's timers.
  const reader = owned !== null && owned.dialect.synchronousDriver && owned.file !== null && owned.file !== ':memory:' ? new ThreadReader(owned.file, LOCKED_FILE_WAIT_MS) : null;
  const cacheTtlMs = options.cacheTtlMs ?? ADMISSION_DEFAULTS.cacheTtlMs;
  const membership = new Membership(
    knex,
    now,
    cacheTtlMs,
    reader === null ? undefined : (sql, bindings) => reader.all(sql, bindings),
    () => refreshDue(),
  );
  // Elapsed time, not the injected clock: how long the database has kept the relay waiting is real time.
  const watch = new StallWatch({ timeoutMs, probeWaitMs: Math.min(PROBE_WAIT_MS, timeoutMs), probeIntervalMs: PROBE_INTERVAL_MS, probeExpiryMs: 5 * timeoutMs, now: () => performance.now(), logger });

  // Standings in steady use are re-read in the background before they expire, one query at a time,
  // so an active user's events never wait on the database. A failed re-read changes nothing: the
  // standings expire on time and the next event that needs one reads it as usual.
  // The first due standing starts a short wait, so the re-read takes every standing that falls due
  // meanwhile in one query rather than one query per standing: a due standing has at most half
  // its life left and is re-read within a quarter of the life (one used only in its last moments
  // still expires first, and its next event reads it).
  const coalesceMs = Math.min(REFRESH_COALESCE_MS, cacheTtlMs / 4);
  let refreshing: Promise<void> | null = null;
  let wakeRefresh: (() => void) | null = null;
  let closed = false;
  function refreshDue(): void {
    if (refreshing !== null || closed) return;
    refreshing = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, coalesceMs);
      // Nothing to re-read is a reason to keep the process alive (the plugin ends with its input).
      timer.unref();
      wakeRefresh = () => {
        clearTimeout(timer);
        resolve();
      };
    })
      .then(refreshBatches)
      .finally(() => {
        refreshing = null;
        wakeRefresh = null;
        // Standings that fell due during this re-read woke nobody (one was already due): the next wait starts now.
        if (membership.dueCount > 0) refreshDue();
      });
  }
  async function refreshBatches(): Promise<void> {
    // Every standing due when the wait ended, in batches, none left over for its next use: a
    // user whose standing was left over could find it expired at the next event and wait on the
    // database (the rest after 500 used to be left: the last 100 of 1,100 falling due together).
    const due = membership.takeDue(Number.MAX_SAFE_INTEGER);
    try {
      for (let from = 0; from < due.length && !closed; from += REFRESH_BATCH) {
        // While the database is stalled the stall watch's probe finds out when it is back; due standings just expire.
        if (watch.isStalled) break;
        const batch = due.slice(from, from + REFRESH_BATCH);
        await watch.run(() => membership.refresh(batch));
      }
    } catch (err) {
      if (!(err instanceof DatabaseStalled)) logger.warn('relay admission: re-reading cached standings failed; they expire on time', { error: (err as Error).message });
    }
  }

  const standingOf = (standing: Standing | undefined): AuthorStanding => (membership.isPremium(standing) ? 'premium' : standing?.registered ? 'registered' : 'unregistered');
  const allRegistered = (pubkeys: readonly string[], standings: Map<string, Standing>) => pubkeys.every((pubkey) => standings.get(pubkey)?.registered === true);

  /**
   * These pubkeys' standings, then `next` of them: at once when all are cached (most events, so
   * no promise is made), otherwise after one read bounded by the stall watch.
   */
  function withStandings<T>(pubkeys: readonly string[], next: (standings: Map<string, Standing>) => T | Promise<T>): T | Promise<T> {
    const { found, missing } = membership.lookup(pubkeys);
    if (missing.length === 0) return next(found);
    return watch.run(() => membership.fetch(missing)).then((fetched) => {
      for (const [pubkey, standing] of fetched) found.set(pubkey, standing);
      return next(found);
    });
  }

  const byAuthor = (event: NostrEvent, recipientsRegistered: (pubkeys: string[]) => boolean): AdmissionDecision | Promise<AdmissionDecision> => {
    // One cached author (most events): no collection is built.
    const cached = membership.cached(event.pubkey);
    if (cached !== undefined) return decide(event, standingOf(cached), recipientsRegistered);
    return withStandings([event.pubkey], (standings) => decide(event, standingOf(standings.get(event.pubkey)), recipientsRegistered));
  };

  const noneRegistered = () => false;

  function judge(event: NostrEvent): AdmissionDecision | Promise<AdmissionDecision> {
    if (event.kind !== GIFT_WRAP_KIND) return byAuthor(event, noneRegistered);
    const tagged = taggedPubkeys(event);
    if (tagged.length === 1) {
      // Only well-formed pubkeys are ever cached, so a cached recipient needs no hex check (NIP-17 DMs: most events).
      const recipient = membership.cached(tagged[0]!);
      // A gift wrap to the relay's users is accepted whoever wraps it, so its one-time author is not read.
      if (recipient?.registered === true) return ACCEPT;
      // Its one recipient is known to be no user: the author decides.
      if (recipient !== undefined) return byAuthor(event, noneRegistered);
    }
    // A gift wrap naming more recipients than allowed, or none, is decided by its author alone: the recipients are not
    // read (tens of thousands of p tags overflowed the query's parameters, and evicted the cache).
    if (tagged.length === 0 || tagged.length > MAX_GIFT_WRAP_RECIPIENTS || !tagged.every(isPubkeyHex)) return byAuthor(event, noneRegistered);
    return withStandings(tagged, (recipients) => (allRegistered(tagged, recipients) ? ACCEPT : byAuthor(event, (pubkeys) => allRegistered(pubkeys, recipients))));
  }

  const failedClosed = (event: NostrEvent, err: unknown): AdmissionDecision => {
    // While stalled every uncached event lands here; the first failure was logged.
    if (!(err instanceof DatabaseStalled)) logger.error('relay admission failed closed: the event is refused', { error: (err as Error).message, event_id: event.id });
    return unavailable();
  };

  function admitNow(value: unknown): AdmissionDecision | Promise<AdmissionDecision> {
    const problem = eventShapeProblem(value);
    if (problem !== null) return { accept: false, message: `invalid: ${problem}` };
    const event = value as NostrEvent;
    // A fresh object: nostr-tools remembers a verdict on the event object itself (a symbol key), which a copy of a tampered event would carry along.
    if (verify && !verifyEvent({ id: event.id, pubkey: event.pubkey, created_at: event.created_at, kind: event.kind, tags: event.tags, content: event.content, sig: event.sig })) {
      return { accept: false, message: 'invalid: bad event id or signature' };
    }
    if (policy === 'open') return ACCEPT;
    try {
      const decision = judge(event);
      return decision instanceof Promise ? decision.catch((err: unknown) => failedClosed(event, err)) : decision;
    } catch (err) {
      return failedClosed(event, err);
    }
  }

  return {
    admitNow,
    admit(value) {
      const decision = admitNow(value);
      return decision instanceof Promise ? decision : Promise.resolve(decision);
    },
    async close() {
      closed = true;
      wakeRefresh?.();
      await refreshing;
      await reader?.close();
      await owned?.knex.destroy();
    },
  };
}
