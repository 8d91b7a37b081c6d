import { epochMsOf, whereAnyOf, type Knex } from '@wallet/backend-core/database';

export interface Standing {
  registered: boolean;
  /** premium_until in ms, or null. */
  premiumUntil: number | null;
  /** When this reading stops being trusted (ms). */
  freshUntil: number;
}

/**
 * A cached standing, its pubkey, and whether it waits in the due list. The flag keeps an entry
 * listed once without a lookup per decision: one-at-a-time decisions start with cold caches after
 * each wait on the pipe, where a lookup in a large set costs about a microsecond.
 */
interface Entry extends Standing {
  pubkey: string;
  due: boolean;
}

/** A users row as the standings read returns it: premium_until in epoch ms. */
interface StandingRow {
  nostr_pubkey: string;
  premium_until_ms: number | null;
}

/** Entries kept at most; the cache starts over when full (a bound on memory, not on staleness). */
const MAX_ENTRIES = 100_000;

/**
 * Who is a user of the wallet, and who is premium, read from the wallet database's `users` table
 * (`nostr_pubkey`, `premium_until`; a suspended account counts as no user) and cached for at most `ttlMs`. A cached premium still ends
 * exactly at its `premium_until` (it is compared with the clock at each decision), so a lapse is
 * never late; a new registration, link, unlink or purchase is seen within `ttlMs`.
 *
 * A standing used in the second half of its life is due: `takeDue` hands those pubkeys to
 * whoever re-reads them in the background, so a pubkey in steady use never waits on the
 * database. A standing is still never used after `freshUntil`, re-read or not.
 */
export class Membership {
  private readonly cache = new Map<string, Entry>();
  /**
   * Entries that fell due, each once (its flag), in the order they did. A list, not a set of
   * pubkeys: a relay adds every standing in steady use once per half a cache life, and a set's
   * adds, deletes and rehashes were a tenth of the plugin's own decision cost in a profile. An
   * entry replaced or evicted since stays listed until taken, and is then skipped.
   */
  private due: Entry[] = [];

  /**
   * `runOn`, when given, runs the query's SQL elsewhere (the SQLite reader thread) instead of on
   * `knex`'s own connection; `knex` still writes the query.
   */
  constructor(
    private readonly knex: Knex,
    private readonly now: () => number,
    private readonly ttlMs: number,
    private readonly runOn?: (sql: string, bindings: readonly unknown[]) => Promise<unknown[]>,
    /** Called when a first standing falls due (none was due before). */
    private readonly onDue?: () => void,
  ) {}

  /** This pubkey's cached standing while it is fresh. */
  cached(pubkey: string): Standing | undefined {
    const standing = this.cache.get(pubkey);
    if (standing === undefined) return undefined;
    const left = standing.freshUntil - this.now();
    if (left <= 0) return undefined;
    if (left * 2 < this.ttlMs && !standing.due) this.markDue(standing);
    return standing;
  }

  /** Up to `max` pubkeys whose standings are due, no longer due once taken (one re-read since marked is enough). */
  takeDue(max: number): string[] {
    const now = this.now();
    const taken: string[] = [];
    let next = 0;
    for (; next < this.due.length && taken.length < max; next++) {
      const entry = this.due[next]!;
      entry.due = false;
      // Replaced by a newer reading (listed on its own once it falls due) or evicted: nothing to re-read for it.
      if (this.cache.get(entry.pubkey) !== entry) continue;
      if ((entry.freshUntil - now) * 2 < this.ttlMs) taken.push(entry.pubkey);
    }
    this.due = next === this.due.length ? [] : this.due.slice(next);
    return taken;
  }

  /** Entries listed as due (an entry replaced or evicted since counts until taken). */
  get dueCount(): number {
    return this.due.length;
  }

  private markDue(entry: Entry): void {
    entry.due = true;
    this.due.push(entry);
    if (this.due.length === 1) this.onDue?.();
  }

  /** The fresh cached standings of these pubkeys (lower-case hex), and those it must read. */
  lookup(pubkeys: readonly string[]): { found: Map<string, Standing>; missing: string[] } {
    const found = new Map<string, Standing>();
    const missing: string[] = [];
    for (const pubkey of pubkeys) {
      if (found.has(pubkey)) continue;
      const cached = this.cached(pubkey);
      if (cached !== undefined) found.set(pubkey, cached);
      else if (!missing.includes(pubkey)) missing.push(pubkey);
    }
    return { found, missing };
  }

  /** Standings of these pubkeys, one query for those not cached. */
  async read(pubkeys: readonly string[]): Promise<Map<string, Standing>> {
    const { found, missing } = this.lookup(pubkeys);
    if (missing.length > 0) for (const [pubkey, standing] of await this.fetch(missing)) found.set(pubkey, standing);
    return found;
  }

  /**
   * Reads these pubkeys' standings from the database in one query, and caches them. The pubkeys
   * must be well formed (64 lower-case hex characters; the decisions check them first): the
   * decision path trusts a cached recipient without checking it again.
   */
  async fetch(pubkeys: readonly string[]): Promise<Map<string, Standing>> {
    // A reading is fresh for the TTL from when it was asked for, not from when it came back.
    const freshUntil = this.now() + this.ttlMs;
    const byKey = await this.premiumUntilOf(pubkeys);
    if (this.ttlMs > 0 && this.cache.size + pubkeys.length > MAX_ENTRIES) {
      this.cache.clear();
      this.due = [];
    }
    const found = new Map<string, Standing>();
    for (const pubkey of pubkeys) {
      const standing: Entry = { pubkey, registered: byKey.has(pubkey), premiumUntil: byKey.get(pubkey) ?? null, freshUntil, due: false };
      const cached = this.cache.get(pubkey);
      // A reading asked for later landed first (a read that outlived its timeout): it stays.
      if (this.ttlMs > 0 && (cached === undefined || cached.freshUntil < freshUntil)) this.cache.set(pubkey, standing);
      found.set(pubkey, standing);
    }
    return found;
  }

  /**
   * The background re-read: these cached standings read again in one query and updated where
   * they are, so a pubkey gone from the cache meanwhile is not brought back, and no entry is
   * made per pubkey: a relay re-reads every standing in steady use about once per half a cache
   * life, so this is most of what the cache costs it.
   */
  async refresh(pubkeys: readonly string[]): Promise<void> {
    // Those evicted since they fell due (the cache starts over when full) are not asked for.
    const cached = pubkeys.filter((pubkey) => this.cache.has(pubkey));
    if (cached.length === 0) return;
    const freshUntil = this.now() + this.ttlMs;
    const byKey = await this.premiumUntilOf(cached);
    for (const pubkey of cached) {
      const entry = this.cache.get(pubkey);
      // An entry read later than this (a first sight of an expired standing, meanwhile) is newer: left as it is.
      if (entry === undefined || entry.freshUntil >= freshUntil) continue;
      // Asked and not answered: no user (now), or suspended.
      entry.registered = byKey.has(pubkey);
      entry.premiumUntil = byKey.get(pubkey) ?? null;
      entry.freshUntil = freshUntil;
    }
  }

  /**
   * The users among these pubkeys, each with its premium_until in epoch ms (or null), in one
   * statement with one parameter however many there are.
   */
  private async premiumUntilOf(pubkeys: readonly string[]): Promise<Map<string, number | null>> {
    // A suspended account is nobody here: its events are refused as an outsider's until it is reinstated.
    const query = whereAnyOf(this.knex('users').select('nostr_pubkey', epochMsOf(this.knex, 'premium_until', 'premium_until_ms')), 'nostr_pubkey', pubkeys).whereNull('suspended_at');
    let rows: StandingRow[];
    if (this.runOn === undefined) rows = (await query) as StandingRow[];
    else {
      const { sql, bindings } = query.toSQL().toNative();
      rows = (await this.runOn(sql, bindings)) as StandingRow[];
    }
    const byKey = new Map<string, number | null>();
    for (const row of rows) byKey.set(row.nostr_pubkey, row.premium_until_ms);
    return byKey;
  }

  /** Premium while premium_until lies ahead of the clock NOW, whenever it was read. */
  isPremium(standing: Standing | undefined): boolean {
    return standing?.premiumUntil != null && standing.premiumUntil > this.now();
  }
}
