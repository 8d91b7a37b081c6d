import type { Asset } from '../chains/index.js';
import type { Clock } from '../clock/index.js';
import { newId } from '../crypto/index.js';
import { PreparedStatement, type Database, type Executor } from '../storage/index.js';
import type { KeyType, ReceivingKey } from './key-forms.js';

const TABLE = 'user_keys';

/** A stored key as the API shows it (spec: UserKeyInfo). */
export interface UserKeyInfo {
  asset: Asset;
  key_type: KeyType;
  public_key: string;
  public_spend_key: string | null;
  /** The owner proved control of this key (docs/wallet-integration.md, "Key proofs"); only proven keys resolve a request to a user. */
  proven: boolean;
}

interface StoredKey {
  user_id: string;
  asset: Asset;
  key_type: KeyType;
  public_key: string;
  public_spend_key: string | null;
  proven_at: unknown;
}

/** Every key of one user, on every key listing, username lookup and receiving-key read. */
const KEYS_OF_USER = new PreparedStatement<{ userId: string }>('keys_of_user', (knex, param) =>
  knex(TABLE)
    .select('user_id', 'asset', 'key_type', 'public_key', 'public_spend_key', 'proven_at')
    .where({ user_id: param('userId') })
    .orderBy([{ column: 'asset' }, { column: 'key_type' }]),
);

interface UpsertParams extends Record<string, unknown> {
  id: string;
  userId: string;
  asset: Asset;
  keyType: KeyType;
  publicKey: string;
  publicSpendKey: string | null;
  now: Date | string;
  provenAt: Date | string | null;
}

/**
 * `upsert`, prepared in its two forms: a proven key (the login's BTC key) is stored proven; an
 * advertised one keeps the proof only while its public key is unchanged.
 */
function upsertStatement(proven: boolean): PreparedStatement<UpsertParams> {
  return new PreparedStatement<UpsertParams>(proven ? 'user_key_upsert_proven' : 'user_key_upsert_advertised', (knex, param) =>
    knex(TABLE)
      .insert({
        id: param('id'),
        user_id: param('userId'),
        asset: param('asset'),
        key_type: param('keyType'),
        public_key: param('publicKey'),
        public_spend_key: param('publicSpendKey'),
        created_at: param('now'),
        updated_at: param('now'),
        proven_at: param('provenAt'),
      })
      .onConflict(['user_id', 'asset', 'key_type'])
      .merge({
        public_key: param('publicKey'),
        public_spend_key: param('publicSpendKey'),
        updated_at: param('now'),
        proven_at: proven ? param('provenAt') : knex.raw(`CASE WHEN ${TABLE}.public_key = ? THEN ${TABLE}.proven_at ELSE NULL END`, [param('publicKey')]),
      })
      .returning(['user_id', 'asset', 'key_type', 'public_key', 'public_spend_key', 'proven_at']),
  );
}
const UPSERT_PROVEN = upsertStatement(true);
const UPSERT_ADVERTISED = upsertStatement(false);

/** A proven key's proof taken from any other account: every extension login runs it for its BTC key. */
const RELEASE_PROOF = new PreparedStatement<{ asset: Asset; keyType: KeyType; publicKey: string; userId: string; now: Date | string }>('user_key_release_proof', (knex, param) =>
  knex(TABLE)
    .where({ asset: param('asset'), key_type: param('keyType'), public_key: param('publicKey') })
    .whereNot({ user_id: param('userId') })
    .whereNotNull('proven_at')
    .update({ proven_at: null, updated_at: param('now') }),
);

const toInfo = (row: StoredKey): UserKeyInfo => ({
  asset: row.asset,
  key_type: row.key_type,
  public_key: row.public_key,
  public_spend_key: row.public_spend_key,
  proven: row.proven_at !== null,
});

/** The user_keys table: one row per (user, asset, key_type). */
export class KeyRepository {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  /**
   * Insert or replace the user's key of this asset and type: one statement, race-free on the
   * unique key. A `proven` write marks the row proven (the caller checked the key's signature,
   * and took the mark off any other account first: `releaseProof`); an unproven write keeps an
   * earlier proof only while the value stays the same, so replacing a key never inherits one.
   */
  async upsert(userId: string, key: ReceivingKey, proven: boolean, executor: Executor = this.db.knex): Promise<UserKeyInfo> {
    const now = this.db.dialect.time(this.clock.now());
    const provenAt = proven ? now : null;
    const rows = await (proven ? UPSERT_PROVEN : UPSERT_ADVERTISED).rows<StoredKey>(executor, {
      id: newId(),
      userId,
      asset: key.asset,
      keyType: key.keyType,
      publicKey: key.publicKey,
      publicSpendKey: key.publicSpendKey,
      now,
      provenAt,
    });
    return toInfo(rows[0]!);
  }

  /**
   * Takes the proven mark off every OTHER account holding this key: the key's holder just proved
   * it for `userId` (a wallet re-registered on a new account moves its keys there). The partial
   * unique index makes a concurrent second prover fail with a unique violation (409).
   */
  async releaseProof(userId: string, key: ReceivingKey, executor: Executor = this.db.knex): Promise<void> {
    await RELEASE_PROOF.rows(executor, { asset: key.asset, keyType: key.keyType, publicKey: key.publicKey, userId, now: this.db.dialect.time(this.clock.now()) });
  }

  async list(userId: string, executor: Executor = this.db.knex): Promise<UserKeyInfo[]> {
    return (await KEYS_OF_USER.rows<StoredKey>(executor, { userId })).map(toInfo);
  }

  async find(userId: string, asset: Asset, keyType: KeyType, executor: Executor = this.db.knex): Promise<UserKeyInfo | null> {
    const row = (await executor(TABLE).where({ user_id: userId, asset, key_type: keyType }).first()) as StoredKey | undefined;
    return row ? toInfo(row) : null;
  }

  /**
   * The account that PROVED this key (at most one: a partial unique index), or null. An unproven
   * row never resolves anyone: anybody can type somebody else's public key into POST /keys.
   */
  async provenOwner(where: { asset: Asset; keyTypes: KeyType[]; publicKey: string }, executor: Executor = this.db.knex): Promise<string | null> {
    const row = (await executor(TABLE)
      .select('user_id')
      .where({ asset: where.asset, public_key: where.publicKey })
      .whereIn('key_type', where.keyTypes)
      .whereNotNull('proven_at')
      .first()) as { user_id: string } | undefined;
    return row?.user_id ?? null;
  }
}
