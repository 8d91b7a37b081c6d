import { createHash } from 'node:crypto';
import type { Clock } from '../clock/index.js';
import type { Integrity } from '../crypto/index.js';
import { readTime, type Database, type Knex } from '../storage/index.js';

export type AuditActorKind = 'admin' | 'cli' | 'system' | 'user';

/** What a caller appends; `seq`, the time and the hashes are the chain's. */
export interface AuditInput {
  action: string;
  actorKind: AuditActorKind;
  /** The acting key; only a prefix is kept. */
  actorPubkey?: string | null;
  target?: string | null;
  details?: Record<string, unknown> | null;
  /** The real peer address (kept on purpose in the operator chain: spec › General rule 2). */
  peerIp?: string | null;
}

export interface AuditEntry {
  seq: number;
  created_at: string;
  action: string;
  actor_kind: string;
  actor_pubkey_prefix: string | null;
  target: string | null;
  details: Record<string, unknown> | null;
  peer_ip: string | null;
  prev_hash: string;
  row_hash: string;
  /** When erasure scrubbed this entry's personal fields (`target`, `details`), or null. */
  erased_at: string | null;
}

/** Which entries `list` returns: one direction, a size and optional exact filters. */
export interface AuditPage {
  afterSeq?: number;
  beforeSeq?: number;
  limit: number;
  action?: string;
  target?: string;
  actorKind?: AuditActorKind;
}

interface StoredAuditRow {
  seq: number | string;
  created_at: unknown;
  action: string;
  actor_kind: string;
  actor_pubkey_prefix: string | null;
  target: string | null;
  details: string | null;
  peer_ip: string | null;
  prev_hash: string;
  row_hash: string;
  erased_at?: unknown;
  erasure_mac?: string | null;
}

export type AuditVerdict = { ok: true; entries: number } | { ok: false; entries: number; brokenAt: number; reason: string };

export interface AuditVerifyOptions {
  /** Walk from seq 1, ignoring checkpoints (default: resume after the newest sealed checkpoint). */
  full?: boolean;
  /** Where the walk starts (0: seq 1), told once before it does. */
  onStart?: (fromSeq: number) => void;
  /** Entries verified so far (checkpointed ones included), after each page. */
  onProgress?: (checked: number) => void;
}

export interface AuditChainOptions {
  /** A checkpoint is sealed at every seq that is a multiple of this, when a verification passes it (default 10 000). */
  checkpointEvery?: number;
}

const GENESIS = '0'.repeat(64);
const PREFIX_HEX = 16;
const DOMAIN = 'admin_audit';
const HEAD_DOMAIN = 'admin_audit_head';
const ERASED_DOMAIN = 'admin_audit_erased';
const CHECKPOINT_DOMAIN = 'admin_audit_checkpoint';
const TABLE = 'admin_audit';
const HEAD_TABLE = 'admin_audit_head';
const CHECKPOINT_TABLE = 'admin_audit_checkpoint';
const HEAD_ID = 1;
const PAGE = 1_000;
const CHECKPOINT_EVERY = 10_000;
/** What an erased entry's `target` and `details` become. */
const ERASED_TARGET = '[erased]';
const ERASED_DETAILS = Object.freeze({ erased: true });

/**
 * The operator audit chain: `row_hash = HMAC(integrity secret, prev_hash ‖ sha256(canonical row))`.
 * Appends take a write lock on the table inside the caller's transaction, so concurrent writers
 * queue instead of forking the chain, and an append rolls back with the work it records. Each
 * append also re-seals the head (newest seq and hash), which is what makes deleting the newest
 * entries detectable.
 */
export class AuditChain {
  private readonly checkpointEvery: number;

  constructor(
    private readonly db: Database,
    private readonly integrity: Integrity,
    private readonly clock: Clock,
    options: AuditChainOptions = {},
  ) {
    this.checkpointEvery = options.checkpointEvery ?? CHECKPOINT_EVERY;
    if (!Number.isSafeInteger(this.checkpointEvery) || this.checkpointEvery < 1) throw new Error('checkpointEvery must be a whole number of at least 1');
  }

  /**
   * `onlyOntoIntact`: refuse (throw, appending nothing) unless the newest entry still matches its
   * hash and the sealed head names it. For work that must not be recorded onto a tampered chain
   * (an erasure, which cannot be undone); the operator's own actions (a key revocation from the
   * shell) are still recorded on a broken chain, where `verify` goes on reporting the break.
   */
  async append(trx: Knex.Transaction, input: AuditInput, options: { onlyOntoIntact?: boolean } = {}): Promise<AuditEntry> {
    await this.db.dialect.lockTableForWrites(trx, TABLE);
    const last = (await trx(TABLE).orderBy('seq', 'desc').first()) as StoredAuditRow | undefined;
    if (options.onlyOntoIntact === true) await this.requireIntactTail(trx, last);
    const entry: Omit<AuditEntry, 'row_hash' | 'erased_at'> = {
      seq: last === undefined ? 1 : Number(last.seq) + 1,
      created_at: this.clock.now().toISOString(),
      action: input.action,
      actor_kind: input.actorKind,
      actor_pubkey_prefix: input.actorPubkey ? input.actorPubkey.toLowerCase().slice(0, PREFIX_HEX) : null,
      target: input.target ?? null,
      details: input.details ?? null,
      peer_ip: input.peerIp ?? null,
      prev_hash: last?.row_hash ?? GENESIS,
    };
    const full: AuditEntry = { ...entry, row_hash: this.hash(entry), erased_at: null };
    await trx(TABLE).insert({
      ...full,
      created_at: this.db.dialect.time(new Date(full.created_at)),
      details: full.details === null ? null : JSON.stringify(full.details),
    });
    const head = { id: HEAD_ID, seq: full.seq, row_hash: full.row_hash, mac: this.sealHead(full.seq, full.row_hash) };
    await trx(HEAD_TABLE).insert(head).onConflict('id').merge();
    return full;
  }

  /**
   * A page of entries: after `afterSeq` oldest first, or before `beforeSeq` newest first, those
   * matching every filter given (exact values: an action, a target, an actor kind).
   */
  async list(page: AuditPage): Promise<AuditEntry[]> {
    let query = this.db.knex(TABLE);
    if (page.action !== undefined) query = query.where({ action: page.action });
    if (page.target !== undefined) query = query.where({ target: page.target });
    if (page.actorKind !== undefined) query = query.where({ actor_kind: page.actorKind });
    query = page.beforeSeq === undefined ? query.where('seq', '>', page.afterSeq ?? 0).orderBy('seq') : query.where('seq', '<', page.beforeSeq).orderBy('seq', 'desc');
    return ((await query.limit(page.limit)) as StoredAuditRow[]).map(toEntry);
  }

  /**
   * Walks the chain in pages and reports the first broken link: a gap or reordering in `seq`, a
   * `prev_hash` that is not the previous row's hash, a row whose hash does not match its contents
   * (edited), an erased row whose erasure seal does not match what is left of it, or an end of
   * chain that is not the sealed head (newest entries deleted).
   *
   * By default the walk resumes after the newest sealed checkpoint (that entry itself is checked
   * against it), so its cost is the entries written since, not the chain's length; `full` walks
   * from seq 1. Passing a multiple of `checkpointEvery` seals a checkpoint there, written as the
   * walk goes: entries up to it verified, whatever the walk finds later.
   */
  async verify(options: AuditVerifyOptions = {}): Promise<AuditVerdict> {
    const start = options.full === true ? { seq: 0, rowHash: GENESIS } : await this.resumePoint();
    if ('broken' in start) return start.broken;
    options.onStart?.(start.seq);
    let expectedSeq = start.seq + 1;
    let prev = start.rowHash;
    let checked = start.seq;
    for (;;) {
      const page = (await this.db.knex(TABLE).where('seq', '>=', expectedSeq).orderBy('seq').limit(PAGE)) as StoredAuditRow[];
      if (page.length === 0) break;
      for (const row of page) {
        const entry = toEntry(row);
        if (entry.seq !== expectedSeq) return { ok: false, entries: checked, brokenAt: expectedSeq, reason: `entry ${expectedSeq} is missing (next is ${entry.seq})` };
        if (entry.prev_hash !== prev) return { ok: false, entries: checked, brokenAt: entry.seq, reason: 'prev_hash does not match the previous entry' };
        const problem = this.entryProblem(entry, row.erasure_mac ?? null);
        if (problem !== null) return { ok: false, entries: checked, brokenAt: entry.seq, reason: `the entry ${problem}` };
        if (entry.seq % this.checkpointEvery === 0) await this.sealCheckpoint(entry);
        prev = entry.row_hash;
        expectedSeq += 1;
        checked += 1;
      }
      options.onProgress?.(checked);
    }
    return this.checkHead(checked, prev);
  }

  /**
   * Erasure's scrub of personal data (spec › Account erasure): every entry about the user, i.e.
   * whose `target` is exactly `user:<userId>` (the convention for entries naming a user), keeps
   * its place, time, action, actors and hash but gets `target` "[erased]", `details`
   * {"erased": true}, the time of the scrub and the server's erasure seal over the scrubbed entry
   * and its unchanged hash. No other entry is read or written, and nothing is re-sealed, so the
   * cost is the user's own entries, whatever the chain's length. An exact target, never a text
   * search: nothing a user can choose (a username) can reach another entry. Runs inside the
   * erasure's transaction with the table locked; an entry of the user's that no longer matches
   * its hash is refused (throws, nothing scrubbed), never blessed by the seal. Returns each
   * scrubbed entry's seq and hash, for the erasure's own audit entry.
   */
  async redact(trx: Knex.Transaction, userId: string): Promise<Array<{ seq: number; row_hash: string }>> {
    const target = `user:${userId}`;
    await this.db.dialect.lockTableForWrites(trx, TABLE);
    const rows = (await trx(TABLE).where({ target }).orderBy('seq')) as StoredAuditRow[];
    const erasedAt = this.clock.now().toISOString();
    const scrubs = rows.map((row) => {
      const entry = toEntry(row);
      const problem = this.entryProblem(entry, row.erasure_mac ?? null);
      if (problem !== null) throw new Error(`the audit entry ${entry.seq} about this user ${problem}; nothing was scrubbed`);
      const scrubbed: AuditEntry = { ...entry, target: ERASED_TARGET, details: { ...ERASED_DETAILS }, erased_at: erasedAt };
      return { scrubbed, mac: this.sealErased(scrubbed) };
    });
    for (const { scrubbed, mac } of scrubs) {
      await trx(TABLE)
        .where({ seq: scrubbed.seq })
        .update({ target: scrubbed.target, details: JSON.stringify(scrubbed.details), erased_at: this.db.dialect.time(new Date(erasedAt)), erasure_mac: mac });
    }
    return scrubs.map(({ scrubbed }) => ({ seq: scrubbed.seq, row_hash: scrubbed.row_hash }));
  }

  /**
   * How this entry differs from what the server wrote (read after "entry N"), or null: checked
   * against its hash, or once erased, against its erasure seal.
   */
  private entryProblem(entry: AuditEntry, erasureMac: string | null): string | null {
    if (entry.erased_at === null) {
      if (erasureMac !== null) return 'carries an erasure seal but no erasure time';
      return entry.row_hash === this.hash(entry) ? null : 'was altered after it was written';
    }
    return this.integrity.verify(ERASED_DOMAIN, this.erasedFields(entry), erasureMac) ? null : 'was altered after it was erased, or marked erased by someone other than the server';
  }

  /** Where an incremental walk starts: after the newest checkpoint, once it and the entry it names check out. */
  private async resumePoint(): Promise<{ seq: number; rowHash: string } | { broken: AuditVerdict }> {
    const checkpoint = (await this.db.knex(CHECKPOINT_TABLE).orderBy('seq', 'desc').first()) as { seq: number | string; row_hash: string; created_at: unknown; mac: string } | undefined;
    if (checkpoint === undefined) return { seq: 0, rowHash: GENESIS };
    const seq = Number(checkpoint.seq);
    const broken = (reason: string): { broken: AuditVerdict } => ({ broken: { ok: false, entries: 0, brokenAt: seq, reason } });
    const createdAt = readTime(checkpoint.created_at);
    // A time that is no time (written by hand) cannot have been sealed: the check fails, it does not throw.
    const sealedAt = Number.isNaN(createdAt.getTime()) ? '' : createdAt.toISOString();
    if (!this.integrity.verify(CHECKPOINT_DOMAIN, [String(seq), checkpoint.row_hash, sealedAt], checkpoint.mac)) {
      return broken(`the checkpoint at entry ${seq} was altered (verify with full to walk the chain from its start)`);
    }
    const row = (await this.db.knex(TABLE).where({ seq }).first()) as StoredAuditRow | undefined;
    if (row === undefined) return broken(`entry ${seq}, which the checkpoint sealed, is missing`);
    const entry = toEntry(row);
    if (entry.row_hash !== checkpoint.row_hash) return broken(`entry ${seq} is not the one the checkpoint sealed`);
    const problem = this.entryProblem(entry, row.erasure_mac ?? null);
    if (problem !== null) return broken(`entry ${seq} ${problem}`);
    return { seq, rowHash: entry.row_hash };
  }

  private async sealCheckpoint(entry: AuditEntry): Promise<void> {
    const createdAt = this.clock.now();
    const mac = this.integrity.seal(CHECKPOINT_DOMAIN, [String(entry.seq), entry.row_hash, createdAt.toISOString()]);
    // Two walks passing the same seq write the same fact: the first one stays.
    await this.db.knex(CHECKPOINT_TABLE).insert({ seq: entry.seq, row_hash: entry.row_hash, created_at: this.db.dialect.time(createdAt), mac }).onConflict('seq').ignore();
  }

  /** The newest entry matches its own hash and is the one the sealed head names (or the chain and head are both empty). */
  private async requireIntactTail(trx: Knex.Transaction, last: StoredAuditRow | undefined): Promise<void> {
    const head = (await trx(HEAD_TABLE).where({ id: HEAD_ID }).first()) as { seq: number | string; row_hash: string; mac: string } | undefined;
    const refuse = (reason: string) => new Error(`the audit chain does not verify at its newest entry (${reason}); nothing was appended`);
    if (last === undefined) {
      if (head !== undefined) throw refuse('the entries the sealed head names are gone');
      return;
    }
    const newest = toEntry(last);
    const problem = this.entryProblem(newest, last.erasure_mac ?? null);
    if (problem !== null) throw refuse(`entry ${newest.seq} ${problem}`);
    if (head === undefined || !this.integrity.verify(HEAD_DOMAIN, [String(head.seq), head.row_hash], head.mac)) throw refuse('the sealed chain head is missing or altered');
    // The hash covers the seq, so a matching hash also means the head ends the chain at this entry.
    if (head.row_hash !== newest.row_hash) throw refuse(`entry ${newest.seq} is not the one the sealed head names (the head says the chain ends at ${Number(head.seq)})`);
  }

  /** The chain must end exactly where the sealed head says it does. */
  private async checkHead(entries: number, lastHash: string): Promise<AuditVerdict> {
    const head = (await this.db.knex(HEAD_TABLE).where({ id: HEAD_ID }).first()) as { seq: number | string; row_hash: string; mac: string } | undefined;
    if (head === undefined) {
      return entries === 0 ? { ok: true, entries } : { ok: false, entries, brokenAt: 1, reason: 'the sealed chain head is missing' };
    }
    const seq = Number(head.seq);
    if (!this.integrity.verify(HEAD_DOMAIN, [String(seq), head.row_hash], head.mac)) return { ok: false, entries, brokenAt: entries + 1, reason: 'the sealed chain head was altered' };
    if (seq > entries) return { ok: false, entries, brokenAt: entries + 1, reason: `entries ${entries + 1}..${seq} were deleted (the head says the chain ends at ${seq})` };
    if (seq < entries) return { ok: false, entries, brokenAt: seq + 1, reason: `entries after ${seq} were not appended by the server (the head says the chain ends at ${seq})` };
    if (head.row_hash !== lastHash) return { ok: false, entries, brokenAt: seq, reason: 'the newest entry is not the one the head was sealed with' };
    return { ok: true, entries };
  }

  private sealHead(seq: number, rowHash: string): string {
    return this.integrity.seal(HEAD_DOMAIN, [String(seq), rowHash]);
  }

  private hash(entry: Omit<AuditEntry, 'row_hash' | 'erased_at'>): string {
    // The canonical row goes in as a digest so the sealed fields never contain the separator.
    return this.integrity.seal(DOMAIN, [entry.prev_hash, digest(canonical(entry))]);
  }

  /** An erased entry's seal binds the hash it was written with to everything it holds now, erasure time included. */
  private erasedFields(entry: AuditEntry): string[] {
    return [entry.row_hash, digest([...canonical(entry), entry.erased_at])];
  }

  private sealErased(entry: AuditEntry): string {
    return this.integrity.seal(ERASED_DOMAIN, this.erasedFields(entry));
  }
}

const digest = (fields: unknown[]) => createHash('sha256').update(JSON.stringify(fields)).digest('hex');

/** The fields an entry's hash covers, in the documented order (docs/admin.md › The audit chain). */
const canonical = (entry: Omit<AuditEntry, 'row_hash' | 'erased_at'>): unknown[] => [entry.seq, entry.created_at, entry.action, entry.actor_kind, entry.actor_pubkey_prefix, entry.target, entry.details, entry.peer_ip];

function toEntry(row: StoredAuditRow): AuditEntry {
  return {
    seq: Number(row.seq),
    created_at: readTime(row.created_at).toISOString(),
    action: row.action,
    actor_kind: row.actor_kind,
    actor_pubkey_prefix: row.actor_pubkey_prefix,
    target: row.target,
    details: row.details === null ? null : (JSON.parse(row.details) as Record<string, unknown>),
    peer_ip: row.peer_ip,
    prev_hash: row.prev_hash,
    row_hash: row.row_hash,
    erased_at: row.erased_at == null ? null : readTime(row.erased_at).toISOString(),
  };
}
