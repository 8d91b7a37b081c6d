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
    const rows = (await executor(TABLE)
      .insert({
        id: newId(),
        user_id: userId,
        asset: key.asset,
        key_type: key.keyType,
        public_key: key.publicKey,
        public_spend_key: key.publicSpendKey,
        created_at: now,
        updated_at: now,
        proven_at: provenAt,
      })
      .onConflict(['user_id', 'asset', 'key_type'])
      .merge({
        public_key: key.publicKey,
        public_spend_key: key.publicSpendKey,
        updated_at: now,
        proven_at: proven
          ? provenAt
          : this.db.knex.raw(`CASE WHEN ${TABLE}.public_key = ? THEN ${TABLE}.proven_at ELSE NULL END`, [key.publicKey]),
      })
      .returning('*')) as StoredKey[];
    return toInfo(rows[0]!);
  }

  /**
   * Takes the proven mark off every OTHER account holding this key: the key's holder just proved
   * it for `userId` (a wallet re-registered on a new account moves its keys there). The partial
   * unique index makes a concurrent second prover fail with a unique violation (409).
   */
  async releaseProof(userId: string, key: ReceivingKey, executor: Executor = this.db.knex): Promise<void> {
    await executor(TABLE)
      .where({ asset: key.asset, key_type: key.keyType, public_key: key.publicKey })
      .whereNot({ user_id: userId })
      .whereNotNull('proven_at')
      .update({ proven_at: null, updated_at: this.db.dialect.time(this.clock.now()) });
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
