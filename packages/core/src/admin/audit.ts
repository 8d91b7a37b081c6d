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
}

export type AuditVerdict = { ok: true; entries: number } | { ok: false; entries: number; brokenAt: number; reason: string };

const GENESIS = '0'.repeat(64);
const PREFIX_HEX = 16;
const DOMAIN = 'admin_audit';
const HEAD_DOMAIN = 'admin_audit_head';
const TABLE = 'admin_audit';
const HEAD_TABLE = 'admin_audit_head';
const HEAD_ID = 1;

/**
 * The operator audit chain: `row_hash = HMAC(integrity secret, prev_hash ‖ sha256(canonical row))`.
 * Appends take a write lock on the table inside the caller's transaction, so concurrent writers
 * queue instead of forking the chain, and an append rolls back with the work it records. Each
 * append also re-seals the head (newest seq and hash), which is what makes deleting the newest
 * entries detectable.
 */
export class AuditChain {
  constructor(
    private readonly db: Database,
    private readonly integrity: Integrity,
    private readonly clock: Clock,
  ) {}

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
    const entry: Omit<AuditEntry, 'row_hash'> = {
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
    const full: AuditEntry = { ...entry, row_hash: this.hash(entry) };
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
   * (edited), or an end of chain that is not the sealed head (newest entries deleted).
   */
  async verify(onProgress?: (checked: number) => void, executor: Knex | Knex.Transaction = this.db.knex): Promise<AuditVerdict> {
    let expectedSeq = 1;
    let prev = GENESIS;
    let checked = 0;
    for (;;) {
      const page = (await executor(TABLE).where('seq', '>=', expectedSeq).orderBy('seq').limit(1_000)) as StoredAuditRow[];
      if (page.length === 0) break;
      for (const row of page) {
        const entry = toEntry(row);
        if (entry.seq !== expectedSeq) return { ok: false, entries: checked, brokenAt: expectedSeq, reason: `entry ${expectedSeq} is missing (next is ${entry.seq})` };
        if (entry.prev_hash !== prev) return { ok: false, entries: checked, brokenAt: entry.seq, reason: 'prev_hash does not match the previous entry' };
        const { row_hash: stored, ...rest } = entry;
        if (stored !== this.hash(rest)) return { ok: false, entries: checked, brokenAt: entry.seq, reason: 'the entry was altered after it was written' };
        prev = stored;
        expectedSeq += 1;
        checked += 1;
      }
      onProgress?.(checked);
    }
    return this.checkHead(checked, prev, executor);
  }

  /**
   * Erasure's scrub of personal data (spec › Account erasure): every entry about the user, i.e.
   * whose `target` is exactly `user:<userId>` (the convention for entries naming a user), keeps
   * its place, time, action and actors but gets `target` "[erased]" and `details`
   * {"erased": true}; that entry and every later one are re-sealed and the head with them, so
   * `audit verify` passes afterwards. An exact target, never a text search: nothing a user can
   * choose (a username) can reach another entry. Runs inside the erasure's transaction with the
   * table locked, and only on a chain that verifies first: a chain already broken is refused
   * (throws), never blessed by the re-seal. Returns each scrubbed entry's seq and the hash it
   * had, for the erasure's own audit entry, so an auditor sees exactly what was re-sealed.
   */
  async redact(trx: Knex.Transaction, userId: string): Promise<Array<{ seq: number; row_hash: string }>> {
    const target = `user:${userId}`;
    await this.db.dialect.lockTableForWrites(trx, TABLE);
    const first = (await trx(TABLE).where({ target }).orderBy('seq').first('seq')) as { seq: number | string } | undefined;
    if (first === undefined) return [];
    const verdict = await this.verify(undefined, trx);
    if (!verdict.ok) throw new Error(`the audit chain does not verify (entry ${verdict.brokenAt}: ${verdict.reason}); nothing was scrubbed`);
    const from = Number(first.seq);
    const before = (await trx(TABLE).where({ seq: from - 1 }).first('row_hash')) as { row_hash: string } | undefined;
    let prev = before?.row_hash ?? GENESIS;
    const scrubbed: Array<{ seq: number; row_hash: string }> = [];
    let last: AuditEntry | undefined;
    for (let after = from - 1; ; ) {
      const page = (await trx(TABLE).where('seq', '>', after).orderBy('seq').limit(1_000)) as StoredAuditRow[];
      if (page.length === 0) break;
      for (const row of page) {
        let entry = toEntry(row);
        if (row.target === target) {
          scrubbed.push({ seq: entry.seq, row_hash: entry.row_hash });
          entry = { ...entry, target: '[erased]', details: { erased: true } };
        }
        const { row_hash: _old, ...rest } = { ...entry, prev_hash: prev };
        entry = { ...rest, row_hash: this.hash(rest) };
        await trx(TABLE)
          .where({ seq: entry.seq })
          .update({ target: entry.target, details: entry.details === null ? null : JSON.stringify(entry.details), prev_hash: entry.prev_hash, row_hash: entry.row_hash });
        prev = entry.row_hash;
        last = entry;
        after = entry.seq;
      }
    }
    if (last !== undefined) await trx(HEAD_TABLE).where({ id: HEAD_ID }).update({ seq: last.seq, row_hash: last.row_hash, mac: this.sealHead(last.seq, last.row_hash) });
    return scrubbed;
  }

  /** The newest entry matches its own hash and is the one the sealed head names (or the chain and head are both empty). */
  private async requireIntactTail(trx: Knex.Transaction, last: StoredAuditRow | undefined): Promise<void> {
    const head = (await trx(HEAD_TABLE).where({ id: HEAD_ID }).first()) as { seq: number | string; row_hash: string; mac: string } | undefined;
    const refuse = (reason: string) => new Error(`the audit chain does not verify at its newest entry (${reason}); nothing was appended`);
    if (last === undefined) {
      if (head !== undefined) throw refuse('the entries the sealed head names are gone');
      return;
    }
    const { row_hash: stored, ...rest } = toEntry(last);
    if (stored !== this.hash(rest)) throw refuse(`entry ${rest.seq} was altered after it was written`);
    if (head === undefined || !this.integrity.verify(HEAD_DOMAIN, [String(head.seq), head.row_hash], head.mac)) throw refuse('the sealed chain head is missing or altered');
    // The hash covers the seq, so a matching hash also means the head ends the chain at this entry.
    if (head.row_hash !== stored) throw refuse(`entry ${rest.seq} is not the one the sealed head names (the head says the chain ends at ${Number(head.seq)})`);
  }

  /** The chain must end exactly where the sealed head says it does. */
  private async checkHead(entries: number, lastHash: string, executor: Knex | Knex.Transaction): Promise<AuditVerdict> {
    const head = (await executor(HEAD_TABLE).where({ id: HEAD_ID }).first()) as { seq: number | string; row_hash: string; mac: string } | undefined;
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

  private hash(entry: Omit<AuditEntry, 'row_hash'>): string {
    const canonical = JSON.stringify([entry.seq, entry.created_at, entry.action, entry.actor_kind, entry.actor_pubkey_prefix, entry.target, entry.details, entry.peer_ip]);
    // The canonical row goes in as a digest so the sealed fields never contain the separator.
    return this.integrity.seal(DOMAIN, [entry.prev_hash, createHash('sha256').update(canonical).digest('hex')]);
  }
}

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
  };
}
