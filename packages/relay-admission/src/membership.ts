import { readOptionalTime, type Knex } from '@wallet/backend-core';

export interface Standing {
  registered: boolean;
  /** premium_until in ms, or null. */
  premiumUntil: number | null;
  /** When this reading stops being trusted (ms). */
  freshUntil: number;
}

/** Entries kept at most; the cache starts over when full (a bound on memory, not on staleness). */
const MAX_ENTRIES = 100_000;

/**
 * Who is a user of the wallet, and who is premium, read from the wallet database's `users` table
 * (`nostr_pubkey`, `premium_until`) and cached for at most `ttlMs`. A cached premium still ends
 * exactly at its `premium_until` (it is compared with the clock at each decision), so a lapse is
 * never late; a new registration, link, unlink or purchase is seen within `ttlMs`.
 */
export class Membership {
  private readonly cache = new Map<string, Standing>();

  /**
   * `runOn`, when given, runs the query's SQL elsewhere (the SQLite reader thread) instead of on
   * `knex`'s own connection; `knex` still writes the query.
   */
  constructor(
    private readonly knex: Knex,
    private readonly now: () => number,
    private readonly ttlMs: number,
    private readonly runOn?: (sql: string, bindings: readonly unknown[]) => Promise<unknown[]>,
  ) {}

  /** The fresh cached standings of these pubkeys (lower-case hex), and those it must read. */
  lookup(pubkeys: readonly string[]): { found: Map<string, Standing>; missing: string[] } {
    const now = this.now();
    const found = new Map<string, Standing>();
    const missing: string[] = [];
    for (const pubkey of pubkeys) {
      if (found.has(pubkey)) continue;
      const cached = this.cache.get(pubkey);
      if (cached !== undefined && cached.freshUntil > now) found.set(pubkey, cached);
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

  /** Reads these pubkeys' standings from the database in one query, and caches them. */
  async fetch(pubkeys: readonly string[]): Promise<Map<string, Standing>> {
    const query = this.knex('users').select('nostr_pubkey', 'premium_until').whereIn('nostr_pubkey', pubkeys);
    let rows: Array<{ nostr_pubkey: string; premium_until: unknown }>;
    if (this.runOn === undefined) rows = (await query) as typeof rows;
    else {
      const { sql, bindings } = query.toSQL().toNative();
      rows = (await this.runOn(sql, bindings)) as typeof rows;
    }
    const byKey = new Map(rows.map((row) => [row.nostr_pubkey, readOptionalTime(row.premium_until)?.getTime() ?? null]));
    const freshUntil = this.now() + this.ttlMs;
    if (this.ttlMs > 0 && this.cache.size + pubkeys.length > MAX_ENTRIES) this.cache.clear();
    const found = new Map<string, Standing>();
    for (const pubkey of pubkeys) {
      const standing: Standing = { registered: byKey.has(pubkey), premiumUntil: byKey.get(pubkey) ?? null, freshUntil };
      if (this.ttlMs > 0) this.cache.set(pubkey, standing);
      found.set(pubkey, standing);
    }
    return found;
  }

  /** Premium while premium_until lies ahead of the clock NOW, whenever it was read. */
  isPremium(standing: Standing | undefined): boolean {
    return standing?.premiumUntil != null && standing.premiumUntil > this.now();
  }
}
