import { utf8ToBytes } from '@noble/hashes/utils.js';
import { ASSETS, cryptonoteNetworkOf, type Asset, type ChainNetwork } from '../chains/index.js';
import { assetSignatureShapeOk, verifyAssetSignature } from '../crypto/index.js';
import { PreparedStatement, type Database } from '../storage/index.js';
import { directoryErrors } from './errors.js';
import { normaliseKey } from './key-forms.js';
import { keyRegistrationMessage, type RegisterKeyRequest } from './key-proof.js';
import type { KeyRepository, UserKeyInfo } from './key-repo.js';
import type { Nip05Cache, Nip05Document } from './nip05-cache.js';
import { receivingKey } from './receiving-keys.js';
import { normaliseUsername } from './usernames.js';

export interface UsernameLookup {
  registered: boolean;
  username: string;
  user_id: string | null;
  keys: UserKeyInfo[];
}

export interface GrinAddressOwner {
  registered: boolean;
  user_id: string | null;
  username: string | null;
}

/** A handle's account (username lookup, NIP-05); a suspended account's entry is withdrawn while the suspension lasts. */
const USER_BY_NAME = new PreparedStatement<{ username: string }>('user_by_name', (knex, param) =>
  knex('users').select('id', 'nostr_pubkey').where({ username: param('username') }).whereNull('suspended_at').first(),
);

/**
 * Public directory reads and the key upsert. Unknown subjects get the same shape as known
 * ones (spec › Errors 2): lookups are not an existence oracle beyond what they must answer.
 */
export class DirectoryService {
  constructor(
    private readonly db: Database,
    private readonly keys: KeyRepository,
    private readonly network: ChainNetwork,
    private readonly nip05Relays: readonly string[],
    /** PUBLIC_API_URL exactly as configured: key proofs name it. */
    private readonly service: string,
    private readonly nip05Cache: Nip05Cache,
  ) {}

  /**
   * Stores a receiving key. With the key's own signature the row is PROVEN, and the proof moves
   * to this account from any other (only the key's holder can sign); without one it is stored
   * as the user's advertised key but never resolves anybody (docs/decisions.md, "Key ownership").
   */
  async registerKey(userId: string, request: RegisterKeyRequest): Promise<UserKeyInfo> {
    const key = normaliseKey(request, this.network);
    if (request.signature === undefined) return this.keys.upsert(userId, key, false);
    const message = keyRegistrationMessage({ service: this.service, userId, asset: request.asset, publicKey: request.public_key });
    const proven =
      assetSignatureShapeOk(request.asset, request.public_key, request.signature) &&
      verifyAssetSignature({ asset: request.asset, publicKey: request.public_key, message: utf8ToBytes(message), signature: request.signature, cryptonoteNetwork: cryptonoteNetworkOf(this.network) });
    if (!proven) throw directoryErrors.create.key_proof_invalid();
    return this.db.transaction(async (trx) => {
      await this.keys.releaseProof(userId, key, trx);
      return this.keys.upsert(userId, key, true, trx);
    });
  }

  async userKeys(userId: string): Promise<{ user_id: string; keys: UserKeyInfo[] }> {
    return { user_id: userId, keys: await this.keys.list(userId) };
  }

  async userKey(userId: string, asset: Asset): Promise<UserKeyInfo> {
    const key = receivingKey(await this.keys.list(userId), asset);
    if (key === null) throw directoryErrors.create.key_not_found();
    return key;
  }

  async byUsername(requested: string): Promise<UsernameLookup> {
    const normalised = normaliseUsername(requested);
    const username = normalised ?? requested.toLowerCase().slice(0, 64);
    const user = normalised === null ? undefined : await this.userByName(normalised);
    if (user === undefined) return { registered: false, username, user_id: null, keys: [] };
    const rows = await this.keys.list(user.id);
    const keys = ASSETS.flatMap((asset) => receivingKey(rows, asset) ?? []);
    return { registered: true, username, user_id: user.id, keys };
  }

  async grinAddressOwner(address: string): Promise<GrinAddressOwner> {
    const userId = await this.keys.provenOwner({ asset: 'grin', keyTypes: ['slatepack_address', 'primary'], publicKey: address.toLowerCase() });
    if (userId === null) return { registered: false, user_id: null, username: null };
    const row = (await this.db.knex('users').select('username').where({ id: userId }).first()) as { username: string | null } | undefined;
    // Erased between the two reads (its keys went with it): nobody owns the address any more.
    if (row === undefined) return { registered: false, user_id: null, username: null };
    return { registered: true, user_id: userId, username: row.username };
  }

  /** NIP-05: `{names, relays}` for a linked user's handle; an empty document for anything else, never an error. */
  async nip05(name: unknown): Promise<Nip05Document> {
    const empty: Nip05Document = { names: {}, relays: {} };
    if (typeof name !== 'string') return empty;
    const username = normaliseUsername(name);
    if (username === null) return empty;
    return this.nip05Cache.lookup(username, async () => {
      const user = await this.userByName(username);
      if (user?.nostr_pubkey == null) return empty;
      return {
        names: { [username]: user.nostr_pubkey },
        relays: this.nip05Relays.length > 0 ? { [user.nostr_pubkey]: [...this.nip05Relays] } : {},
      };
    });
  }

  private async userByName(username: string): Promise<{ id: string; nostr_pubkey: string | null } | undefined> {
    return USER_BY_NAME.first<{ id: string; nostr_pubkey: string | null }>(this.db.knex, { username });
  }
}
