import type { Asset } from '../chains/index.js';
import type { Clock } from '../clock/index.js';
import { newId } from '../crypto/index.js';
import type { Database, Executor } from '../storage/index.js';
import type { KeyType, ReceivingKey } from './key-forms.js';

const TABLE = 'user_keys';

/** A stored key as the API shows it (spec: UserKeyInfo). */
export interface UserKeyInfo {
  asset: Asset;
  key_type: KeyType;
  public_key: string;
  public_spend_key: string | null;
}

interface StoredKey {
  user_id: string;
  asset: Asset;
  key_type: KeyType;
  public_key: string;
  public_spend_key: string | null;
}

const toInfo = (row: StoredKey): UserKeyInfo => ({
  asset: row.asset,
  key_type: row.key_type,
  public_key: row.public_key,
  public_spend_key: row.public_spend_key,
});

/** The user_keys table: one row per (user, asset, key_type). */
export class KeyRepository {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  /** Insert or replace the user's key of this asset and type: one statement, race-free on the unique key. */
  async upsert(userId: string, key: ReceivingKey, executor: Executor = this.db.knex): Promise<UserKeyInfo> {
    const now = this.db.dialect.time(this.clock.now());
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
      })
      .onConflict(['user_id', 'asset', 'key_type'])
      .merge(['public_key', 'public_spend_key', 'updated_at'])
      .returning('*')) as StoredKey[];
    return toInfo(rows[0]!);
  }

  async list(userId: string, executor: Executor = this.db.knex): Promise<UserKeyInfo[]> {
    const rows = (await executor(TABLE).where({ user_id: userId }).orderBy([{ column: 'asset' }, { column: 'key_type' }])) as StoredKey[];
    return rows.map(toInfo);
  }

  async find(userId: string, asset: Asset, keyType: KeyType, executor: Executor = this.db.knex): Promise<UserKeyInfo | null> {
    const row = (await executor(TABLE).where({ user_id: userId, asset, key_type: keyType }).first()) as StoredKey | undefined;
    return row ? toInfo(row) : null;
  }

  /**
   * The user who registered this key. A key may sit on several accounts (a wallet re-registered
   * without a rotation proof gets a new account with the same keys); the most recently written
   * row wins, the account the wallet last registered it to.
   */
  async ownerOf(where: { asset: Asset; keyTypes: KeyType[]; publicKey?: string; publicSpendKey?: string }, executor: Executor = this.db.knex): Promise<string | null> {
    const query = executor(TABLE).select('user_id').where({ asset: where.asset }).whereIn('key_type', where.keyTypes);
    if (where.publicKey !== undefined) query.where({ public_key: where.publicKey });
    if (where.publicSpendKey !== undefined) query.where({ public_spend_key: where.publicSpendKey });
    const row = (await query.orderBy('updated_at', 'desc').first()) as { user_id: string } | undefined;
    return row?.user_id ?? null;
  }
}
