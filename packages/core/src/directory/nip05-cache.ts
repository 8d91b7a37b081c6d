import type { Knex } from 'knex';
import type { Clock } from '../clock/index.js';
import type { Executor } from '../storage/index.js';

/** The NIP-05 document of one name, as served. */
export interface Nip05Document {
  names: Record<string, string>;
  relays: Record<string, string[]>;
}

/** Names held at most; past it the oldest entry makes room (unknown names are cached too, so lookups of random names cannot grow it). */
const NIP05_CACHE_MAX_NAMES = 10_000;

/**
 * NIP-05 documents kept in this process for `NIP05_CACHE_TTL_SEC` (NIP-05 is the most-hit
 * public route, and a name changes rarely). Staleness is bounded two ways:
 *
 * - A write in THIS process that can change what a name resolves to (a username set, a Nostr
 *   key linked, an account erased) calls `forget`: every entry is dropped at once, and again
 *   when the writing transaction ends, and a lookup that was reading while either happened does
 *   not store what it read (it may be the value from before the commit).
 * - A write by ANOTHER process (a second server, the CLI) is seen once the entry's TTL ends.
 */
export class Nip05Cache {
  private readonly entries = new Map<string, { document: Nip05Document; expiresAtMs: number }>();
  /** Bumped by every forget: a lookup stores its result only if none happened while it read. */
  private generation = 0;

  constructor(
    /** The TTL in ms, read on each lookup (the settings are known only after the backend is built); 0: no cache. */
    private readonly ttlMs: () => number,
    private readonly clock: Clock,
    private readonly maxNames = NIP05_CACHE_MAX_NAMES,
  ) {}

  async lookup(username: string, load: () => Promise<Nip05Document>): Promise<Nip05Document> {
    const ttlMs = this.ttlMs();
    if (ttlMs <= 0) return load();
    const nowMs = this.clock.now().getTime();
    const cached = this.entries.get(username);
    if (cached !== undefined && cached.expiresAtMs > nowMs) return cached.document;
    const generation = this.generation;
    const document = await load();
    if (generation === this.generation) {
      this.entries.delete(username);
      if (this.entries.size >= this.maxNames) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(username, { document, expiresAtMs: nowMs + ttlMs });
    }
    return document;
  }

  /** Something a name resolves to may have changed through `executor`: forget now, and again when its transaction ends. */
  forget(executor?: Executor): void {
    this.clear();
    const transaction = executor as Partial<Knex.Transaction> | undefined;
    if (transaction?.isTransaction === true && transaction.executionPromise !== undefined) {
      transaction.executionPromise.then(
        () => this.clear(),
        () => this.clear(),
      );
    }
  }

  private clear(): void {
    this.generation++;
    this.entries.clear();
  }
}
