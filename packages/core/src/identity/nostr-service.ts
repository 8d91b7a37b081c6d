import type { AuthResponse, SessionService, SignedActionVerifier } from '../auth/index.js';
import type { ChallengeStore, IssuedChallenge } from '../challenges/index.js';
import type { ChainNetwork } from '../chains/index.js';
import type { Clock } from '../clock/index.js';
import { verifyNip98, NIP98_WINDOW_SEC, type Peppers } from '../crypto/index.js';
import type { KeyRepository, SubmittedKey } from '../directory/index.js';
import { API_PREFIX } from '../http/index.js';
import { isUniqueViolation, type Database, type Knex } from '../storage/index.js';
import { identityErrors } from './errors.js';
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
}

export interface NostrDeps {
  db: Database;
  identities: IdentityRepository;
  keys: KeyRepository;
  sessions: SessionService;
  challenges: ChallengeStore;
  signedActions: SignedActionVerifier;
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

  /** `POST /auth/nostr/register`: get-or-create by npub, merging with an account of the same seed. */
  async register(request: NostrRegisterRequest, clientIp: string): Promise<AuthResponse> {
    const { deps } = this;
    const keys = normaliseKeyList(request.keys, deps.network);
    const seed = deps.peppers.pepper(request.seed_fingerprint.toLowerCase());
    const { pubkey } = await deps.signedActions.verify({ token: request.nostr_token, nonce: request.nonce, purpose: NOSTR_REGISTER_PURPOSE, path: NOSTR_REGISTER_PATH });
    const attempt: RegistrationAttempt = { identity: { kind: 'npub', value: pubkey }, inputs: request };
    const linked = await deps.identities.byNostr(pubkey);
    const mergeable = (await deps.identities.bySeed(seed)).some((row) => row.nostr_pubkey === null);
    if (linked === null && !mergeable) await deps.gates.precheck(attempt);
    try {
      return await deps.db.transaction(async (trx) => {
        const userId = await this.resolve(trx, pubkey, seed, attempt);
        // The chain keys are not bound into the proof (spec rule 7): stored as advertised, never
        // proven, and a btc key never becomes the account's pubkey_hash (that would let anyone
        // claim somebody else's BTC identity by typing its public key).
        for (const key of keys) await deps.keys.upsert(userId, key, false, trx);
        await deps.loginEvents.record({ userId, platform: 'nostr', clientIp, fingerprint: seed }, trx);
        return deps.sessions.start(userId, 'nostr', trx);
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw identityErrors.create.identity_conflict({ cause: err });
      throw err;
    }
  }

  private async resolve(trx: Knex.Transaction, pubkey: string, seed: string, attempt: RegistrationAttempt): Promise<string> {
    const { deps } = this;
    const sameSeed: IdentityRow[] = await deps.identities.bySeed(seed, trx);
    if (sameSeed.some((row) => row.nostr_pubkey !== null && row.nostr_pubkey !== pubkey)) throw identityErrors.create.seed_registered_elsewhere();
    const linked = await deps.identities.byNostr(pubkey, trx);
    if (linked !== null) {
      await deps.identities.adoptSeed(linked.id, seed, trx);
      return linked.id;
    }
    const merge = sameSeed[0];
    if (merge !== undefined) {
      // The wallet already has an account: attach the npub instead of splitting it in two.
      if (!(await deps.identities.linkNostr(merge.id, pubkey, trx))) throw identityErrors.create.identity_conflict();
      return merge.id;
    }
    await deps.gates.admit(attempt, trx);
    return deps.identities.create({ seedFingerprint: seed, nostrPubkey: pubkey }, trx);
  }
}
