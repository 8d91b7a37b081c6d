import type { Clock } from '../clock/index.js';
import { newId } from '../crypto/index.js';
import { PreparedStatement, type Database, type Executor } from '../storage/index.js';

export interface IdentityRow {
  id: string;
  pubkey_hash: string | null;
  seed_fingerprint: string | null;
  nostr_pubkey: string | null;
}

const COLUMNS = ['id', 'pubkey_hash', 'seed_fingerprint', 'nostr_pubkey'] as const;
/** A login's account lookup (every extension login reads it twice). */
const BY_PUBKEY_HASH = new PreparedStatement<{ pubkeyHash: string }>('identity_by_pubkey_hash', (knex, param) =>
  knex('users').select(COLUMNS).where({ pubkey_hash: param('pubkeyHash') }).first(),
);
/** A returning login records its seed fingerprint if the account had none. */
const ADOPT_SEED = new PreparedStatement<{ id: string; seed: string; now: Date | string }>('identity_adopt_seed', (knex, param) =>
  knex('users').where({ id: param('id') }).whereNull('seed_fingerprint').update({ seed_fingerprint: param('seed'), updated_at: param('now') }),
);
/** Bound on accounts sharing one seed fingerprint that a lookup considers. */
const SEED_MATCH_LIMIT = 20;

/**
 * The identity columns of `users`. `pubkey_hash` and `seed_fingerprint` arrive here already
 * peppered (docs/architecture.md#keyed-hashes); this class never sees the raw values.
 */
export class IdentityRepository {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    /** Told when a name may resolve to another Nostr key through `executor` (the NIP-05 cache). */
    private readonly nostrKeyLinked: (executor: Executor) => void = () => undefined,
  ) {}

  async byPubkeyHash(pepperedPubkeyHash: string, executor: Executor = this.db.knex): Promise<IdentityRow | null> {
    return (await BY_PUBKEY_HASH.first<IdentityRow>(executor, { pubkeyHash: pepperedPubkeyHash })) ?? null;
  }

  async byId(userId: string, executor: Executor = this.db.knex): Promise<IdentityRow | null> {
    return ((await executor('users').select(COLUMNS).where({ id: userId }).first()) as IdentityRow | undefined) ?? null;
  }

  async byNostr(pubkey: string, executor: Executor = this.db.knex): Promise<IdentityRow | null> {
    return ((await executor('users').select(COLUMNS).where({ nostr_pubkey: pubkey }).first()) as IdentityRow | undefined) ?? null;
  }

  /** Accounts registered with this seed, newest first. */
  async bySeed(pepperedSeed: string, executor: Executor = this.db.knex): Promise<IdentityRow[]> {
    return (await executor('users')
      .select(COLUMNS)
      .where({ seed_fingerprint: pepperedSeed })
      .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }])
      .limit(SEED_MATCH_LIMIT)) as IdentityRow[];
  }

  /** A new account; a concurrent twin with the same pubkey_hash or npub makes this throw a unique violation. */
  async create(identity: { pubkeyHash?: string | null; seedFingerprint?: string | null; nostrPubkey?: string | null }, executor: Executor = this.db.knex): Promise<string> {
    const id = newId();
    const now = this.db.dialect.time(this.clock.now());
    await executor('users').insert({
      id,
      pubkey_hash: identity.pubkeyHash ?? null,
      seed_fingerprint: identity.seedFingerprint ?? null,
      nostr_pubkey: identity.nostrPubkey ?? null,
      created_at: now,
      updated_at: now,
    });
    return id;
  }

  /** Rotation: moves the account to a new pubkey_hash, only if it still holds the old one. */
  async repoint(userId: string, fromPubkeyHash: string | null, toPubkeyHash: string, executor: Executor = this.db.knex): Promise<boolean> {
    const row = await this.db.transitionOne(
      'users',
      (qb) => {
        qb.where({ id: userId });
        if (fromPubkeyHash === null) qb.whereNull('pubkey_hash');
        else qb.where({ pubkey_hash: fromPubkeyHash });
      },
      { pubkey_hash: toPubkeyHash, updated_at: this.db.dialect.time(this.clock.now()) },
      executor,
    );
    return row !== null;
  }

  /** Sets the npub only on an account that has none; false when the account already has one. */
  async linkNostr(userId: string, pubkey: string, executor: Executor = this.db.knex): Promise<boolean> {
    const row = await this.db.transitionOne(
      'users',
      (qb) => qb.where({ id: userId }).whereNull('nostr_pubkey'),
      { nostr_pubkey: pubkey, updated_at: this.db.dialect.time(this.clock.now()) },
      executor,
    );
    if (row !== null) this.nostrKeyLinked(executor);
    return row !== null;
  }

  /** Records the seed on an account registered without one (never overwrites). */
  async adoptSeed(userId: string, pepperedSeed: string, executor: Executor = this.db.knex): Promise<void> {
    await ADOPT_SEED.rows(executor, { id: userId, seed: pepperedSeed, now: this.db.dialect.time(this.clock.now()) });
  }

  /** Sets the pubkey_hash on an account that has none (a wallet whose BTC key that account already proved); false when it has one. */
  async adoptPubkeyHash(userId: string, pepperedPubkeyHash: string, executor: Executor = this.db.knex): Promise<boolean> {
    const updated = await executor('users').where({ id: userId }).whereNull('pubkey_hash').update({ pubkey_hash: pepperedPubkeyHash, updated_at: this.db.dialect.time(this.clock.now()) });
    return updated === 1;
  }
}
