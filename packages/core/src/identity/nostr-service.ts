import type { AuthResponse, Sessions, SignedActions } from '../auth/index.js';
import type { Challenges, IssuedChallenge } from '../challenges/index.js';
import type { ChainNetwork } from '../chains/index.js';
import type { Clock } from '../clock/index.js';
import { verifyNip98, NIP98_WINDOW_SEC, type Peppers } from '../crypto/index.js';
import type { KeyRepository, SubmittedKey } from '../directory/index.js';
import { API_PREFIX } from '../http/index.js';
import { isUniqueViolation, type Database, type Executor, type Knex } from '../storage/index.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { btcPrimary, btcSigner } from './btc-identity.js';
import { identityErrors } from './errors.js';
import { retryIdentityRace, USERS_NOSTR_PUBKEY } from './identity-race.js';
import { nostrMergeMessage } from './messages.js';
import { normaliseKeyList } from './extension-service.js';
import type { GateInputs, RegistrationAttempt, RegistrationGates } from './gates.js';
import type { IdentityRepository, IdentityRow } from './identity-repo.js';
import type { LoginEventLog } from './login-events.js';
import type { SpentProofStore } from './spent-proofs.js';

export const NOSTR_LINK_PURPOSE = 'nostr_link';
export const NOSTR_REGISTER_PURPOSE = 'nostr_register';
export const NOSTR_LOGIN_PATH = '/auth/nostr';
export const NOSTR_LINK_PATH = '/auth/nostr/link';
export const NOSTR_REGISTER_PATH = '/auth/nostr/register';

export interface NostrRegisterRequest extends GateInputs {
  nostr_token: string;
  nonce: string;
  seed_fingerprint: string;
  keys: SubmittedKey[];
  /** Signature of nostrMergeMessage by a BTC key an existing account proved: joins that account. */
  merge_signature?: string | undefined;
}

export interface NostrDeps {
  db: Database;
  identities: IdentityRepository;
  keys: KeyRepository;
  sessions: Sessions;
  challenges: Challenges;
  signedActions: SignedActions;
  gates: RegistrationGates;
  spentProofs: SpentProofStore;
  loginEvents: LoginEventLog;
  peppers: Peppers;
  clock: Clock;
  service: string;
  network: ChainNetwork;
}

/**
 * Nostr identity (spec › rules 5–7): NIP-98 login for a linked npub, linking an npub to the
 * bearer's account by signed action, and registration by signed action with a seed merge.
 */
export class NostrIdentityService {
  constructor(private readonly deps: NostrDeps) {}

  /** `POST /auth/nostr`: login grade; never creates an account. */
  async login(authorization: string | undefined, rawBody: Uint8Array, clientIp: string): Promise<AuthResponse> {
    const { deps } = this;
    const url = `${deps.service.replace(/\/+$/, '')}${API_PREFIX}${NOSTR_LOGIN_PATH}`;
    const checked = verifyNip98({ authorization, url, method: 'POST', body: rawBody, now: deps.clock.now() });
    if (!checked.ok) throw identityErrors.create.proof_invalid({ message: `The Nostr proof is invalid: ${checked.reason}.` });
    const user = await deps.identities.byNostr(checked.pubkey);
    if (user === null) throw identityErrors.create.nostr_not_linked();
    // A NIP-98 event is good for its whole window; spend its id so a captured header is worth one login.
    const expires = new Date((checked.event.created_at + 2 * NIP98_WINDOW_SEC) * 1000);
    return deps.db.transaction(async (trx) => {
      if (!(await deps.spentProofs.spend(`nip98:${checked.event.id}`, expires, trx))) throw identityErrors.create.proof_replayed();
      await deps.loginEvents.record({ userId: user.id, platform: 'nostr', clientIp, fingerprint: user.seed_fingerprint }, trx);
      return deps.sessions.start(user.id, 'nostr', trx);
    });
  }

  linkChallenge(userId: string): Promise<IssuedChallenge> {
    return this.deps.challenges.issue(NOSTR_LINK_PURPOSE, { subject: userId });
  }

  registerChallenge(): Promise<IssuedChallenge> {
    return this.deps.challenges.issue(NOSTR_REGISTER_PURPOSE);
  }

  /** `POST /auth/nostr/link`: the nonce must have been issued to this user; empty-body descriptor. */
  async link(userId: string, token: string, nonce: string): Promise<{ nostr_pubkey: string }> {
    const { deps } = this;
    const { pubkey } = await deps.signedActions.verify({ token, nonce, purpose: NOSTR_LINK_PURPOSE, path: NOSTR_LINK_PATH, subject: userId });
    const holder = await deps.identities.byNostr(pubkey);
    if (holder !== null) {
      if (holder.id === userId) return { nostr_pubkey: pubkey };
      throw identityErrors.create.nostr_already_linked();
    }
    try {
      if (await deps.identities.linkNostr(userId, pubkey)) return { nostr_pubkey: pubkey };
    } catch (err) {
      // Another account linked this npub between our read and our write.
      if (isUniqueViolation(err)) throw identityErrors.create.nostr_already_linked({ cause: err });
      throw err;
    }
    throw identityErrors.create.account_nostr_linked();
  }

  /**
   * `POST /auth/nostr/register`: get-or-create by npub. The seed fingerprint is recorded, never
   * trusted: it is chosen by the client and often public (a BIP32 master fingerprint travels in
   * every descriptor), so it joins nothing, skips no gate and answers nothing about other
   * accounts. An existing account is joined only through `merge_signature`, a signature by a BTC
   * key that account proved (docs/decisions.md, "Nostr registration joins by proof").
   */
  async register(request: NostrRegisterRequest, clientIp: string): Promise<AuthResponse> {
    const { deps } = this;
    const keys = normaliseKeyList(request.keys, deps.network);
    const seed = deps.peppers.pepper(request.seed_fingerprint.toLowerCase());
    // The merge proof is bound to the action's npub and nonce: checked before the nonce is spent, and spent with it.
    const proof: { mergeKey: string | null } = { mergeKey: null };
    const { merge_signature: mergeSignature } = request;
    const { pubkey } = await deps.signedActions.verify({
      token: request.nostr_token,
      nonce: request.nonce,
      purpose: NOSTR_REGISTER_PURPOSE,
      path: NOSTR_REGISTER_PATH,
      alsoCheck: mergeSignature === undefined ? undefined : (action) => void (proof.mergeKey = this.mergeKey(mergeSignature, action.pubkey, request.nonce)),
    });
    const merge = proof.mergeKey;
    const attempt: RegistrationAttempt = { identity: { kind: 'npub', value: pubkey }, inputs: request };
    // Gates are for new identities: an npub already linked, or an account the wallet proved it
    // holds (with no other npub), registers without them; everything else is prechecked here,
    // outside the transaction, and admitted inside it.
    const { linked, owner } = await this.candidates(pubkey, merge, deps.db.knex);
    if (linked === null && (owner === null || owner.nostr_pubkey !== null)) await deps.gates.precheck(attempt);
    return retryIdentityRace(
      () =>
        deps.db.transaction(async (trx) => {
          const userId = await this.resolve(trx, pubkey, seed, merge, attempt);
          // The chain keys are not bound into the proof (spec rule 7): stored as advertised, never
          // proven, and a btc key never becomes the account's pubkey_hash (that would let anyone
          // claim somebody else's BTC identity by typing its public key).
          for (const key of keys) await deps.keys.upsert(userId, key, false, trx);
          await deps.loginEvents.record({ userId, platform: 'nostr', clientIp, fingerprint: seed }, trx);
          return deps.sessions.start(userId, 'nostr', trx);
        }),
      [USERS_NOSTR_PUBKEY],
    );
  }

  /** The BTC key (hex, compressed) that signed the merge message for this npub and nonce; 401 when the signature proves no key. */
  private mergeKey(signature: string, pubkey: string, nonce: string): string {
    const signer = btcSigner(nostrMergeMessage(this.deps.service, pubkey, nonce), signature);
    if (signer === null) throw identityErrors.create.proof_invalid({ message: 'The merge signature is not a valid Bitcoin message signature.' });
    return bytesToHex(signer);
  }

  /**
   * The account the npub is linked to, and the account that PROVED the merge proof's key: only
   * that one is the wallet's; a valid signature by a key no account proved joins nothing (a first
   * registration may always send one) and goes on as new.
   */
  private async candidates(pubkey: string, mergeKey: string | null, executor: Executor): Promise<{ linked: IdentityRow | null; owner: IdentityRow | null }> {
    const { deps } = this;
    const linked = await deps.identities.byNostr(pubkey, executor);
    const ownerId = mergeKey === null ? null : await deps.keys.provenOwner(btcPrimary(mergeKey), executor);
    return { linked, owner: ownerId === null ? null : await deps.identities.byId(ownerId, executor) };
  }

  private async resolve(trx: Knex.Transaction, pubkey: string, seed: string, mergeKey: string | null, attempt: RegistrationAttempt): Promise<string> {
    const { deps } = this;
    const { linked, owner } = await this.candidates(pubkey, mergeKey, trx);
    if (owner !== null && owner.id !== linked?.id) {
      if (owner.nostr_pubkey !== null) throw identityErrors.create.seed_registered_elsewhere();
      if (linked !== null) throw identityErrors.create.nostr_already_linked();
      // The wallet already has an account: attach the npub instead of splitting it in two.
      if (!(await deps.identities.linkNostr(owner.id, pubkey, trx))) throw identityErrors.create.identity_conflict();
      await deps.identities.adoptSeed(owner.id, seed, trx);
      return owner.id;
    }
    if (linked !== null) {
      await deps.identities.adoptSeed(linked.id, seed, trx);
      return linked.id;
    }
    await deps.gates.admit(attempt, trx);
    return deps.identities.create({ seedFingerprint: seed, nostrPubkey: pubkey }, trx);
  }
}
