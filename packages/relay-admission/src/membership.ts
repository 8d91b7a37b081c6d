import { readOptionalTime, type Knex } from '@wallet/backend-core';

interface Standing {
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

  constructor(
    private readonly knex: Knex,
    private readonly now: () => number,
    private readonly ttlMs: number,
  ) {}

  /** Standings of these pubkeys (lower-case hex), one query for those not cached. */
  async read(pubkeys: string[]): Promise<Map<string, Standing>> {
    const now = this.now();
    const found = new Map<string, Standing>();
    const missing: string[] = [];
    for (const pubkey of new Set(pubkeys)) {
      const cached = this.cache.get(pubkey);
      if (cached !== undefined && cached.freshUntil > now) found.set(pubkey, cached);
      else missing.push(pubkey);
    }
    if (missing.length === 0) return found;
    const rows = (await this.knex('users').select('nostr_pubkey', 'premium_until').whereIn('nostr_pubkey', missing)) as Array<{ nostr_pubkey: string; premium_until: unknown }>;
    const byKey = new Map(rows.map((row) => [row.nostr_pubkey, readOptionalTime(row.premium_until)?.getTime() ?? null]));
    if (this.ttlMs > 0 && this.cache.size + missing.length > MAX_ENTRIES) this.cache.clear();
    for (const pubkey of missing) {
      const standing: Standing = { registered: byKey.has(pubkey), premiumUntil: byKey.get(pubkey) ?? null, freshUntil: now + this.ttlMs };
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
