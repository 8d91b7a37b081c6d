import { bytesToHex } from '@noble/hashes/utils.js';
import type { AuthResponse, Sessions } from '../auth/index.js';
import type { Clock } from '../clock/index.js';
import { hash160, type Peppers } from '../crypto/index.js';
import { normaliseKey, type KeyRepository, type ReceivingKey, type SubmittedKey } from '../directory/index.js';
import type { ChainNetwork } from '../chains/index.js';
import type { Database, Knex } from '../storage/index.js';
import { btcPrimary, btcSigner } from './btc-identity.js';
import { identityErrors } from './errors.js';
import { PROVEN_KEY, retryIdentityRace, USERS_PUBKEY_HASH } from './identity-race.js';
import type { GateInputs, RegistrationAttempt, RegistrationGates } from './gates.js';
import type { IdentityRepository, IdentityRow } from './identity-repo.js';
import type { LoginEventLog } from './login-events.js';
import { extensionLoginMessage, keyRotationMessage, SIGNED_TIMESTAMP_SKEW_SEC } from './messages.js';
import type { SpentProofStore } from './spent-proofs.js';

export interface ExtensionLoginRequest extends GateInputs {
  pubkey_hash: string;
  seed_fingerprint: string;
  keys: SubmittedKey[];
  timestamp: number;
  signature: string;
  rotation_signature?: string | undefined;
}

export interface ExtensionDeps {
  db: Database;
  identities: IdentityRepository;
  keys: KeyRepository;
  sessions: Sessions;
  gates: RegistrationGates;
  spentProofs: SpentProofStore;
  loginEvents: LoginEventLog;
  peppers: Peppers;
  clock: Clock;
  service: string;
  network: ChainNetwork;
}

/**
 * A registration's `keys` list in stored form: every entry validated (`normaliseKey`, Grin routed
 * by form) and at most one entry per (asset, key type), else 400 `duplicate_key` naming both
 * entries. A Grin hex key and a Grin slatepack address are two key types, not duplicates.
 * Shared by the extension and Nostr registrations.
 */
export function normaliseKeyList(submitted: SubmittedKey[], network: ChainNetwork): ReceivingKey[] {
  const keys = submitted.map((key) => normaliseKey(key, network));
  const seen = new Map<string, number>();
  keys.forEach((key, index) => {
    const slot = `${key.asset} ${key.keyType}`;
    const first = seen.get(slot);
    if (first !== undefined) {
      throw identityErrors.create.duplicate_key({ details: [{ path: `body.keys.${index}`, message: `a second ${slot} key (the first is body.keys.${first})` }] });
    }
    seen.set(slot, index);
  });
  return keys;
}

/**
 * `POST /auth/extension` (spec › Authentication and identity, rule 2): the BTC key proves
 * itself by signing a timestamped login message; a known pubkey_hash logs in without gates; a
 * new one registers through the gates, re-pointing an existing account only with a rotation
 * proof by the key that account has on file.
 */
export class ExtensionLoginService {
  constructor(private readonly deps: ExtensionDeps) {}

  async login(request: ExtensionLoginRequest, clientIp: string): Promise<AuthResponse> {
    const { deps } = this;
    const pubkeyHash = request.pubkey_hash.toLowerCase();
    const signer = btcSigner(extensionLoginMessage(deps.service, pubkeyHash, request.timestamp), request.signature);
    if (signer === null || bytesToHex(hash160(signer)) !== pubkeyHash) throw identityErrors.create.proof_invalid();
    const now = deps.clock.now();
    const skewSec = Math.abs(Math.floor(now.getTime() / 1000) - request.timestamp);
    if (skewSec > SIGNED_TIMESTAMP_SKEW_SEC) throw identityErrors.create.proof_expired();
    const keys = this.keysFor(request.keys, bytesToHex(signer));
    const peppered = deps.peppers.pepper(pubkeyHash);
    const seed = deps.peppers.pepper(request.seed_fingerprint.toLowerCase());
    const attempt = { identity: { kind: 'pubkey_hash' as const, value: pubkeyHash }, inputs: request };
    // Slow and remote gate checks run before the transaction, and only for a new identity: not for
    // a known pubkey_hash, nor for an account that proved this key (it adopts the pubkey_hash
    // ungated, like a Nostr registration merging by seed). Whatever turns out new inside the
    // transaction is prechecked there by admit.
    if ((await deps.identities.byPubkeyHash(peppered)) === null && (await deps.keys.provenOwner(btcPrimary(bytesToHex(signer)))) === null) await deps.gates.precheck(attempt);

    return retryIdentityRace(
      () =>
        deps.db.transaction(async (trx) => {
          // Single use per identity: the timestamp is part of the key, and it outlives the skew window.
          const expires = new Date((request.timestamp + 2 * SIGNED_TIMESTAMP_SKEW_SEC) * 1000);
          if (!(await deps.spentProofs.spend(`extension:${peppered}:${request.timestamp}`, expires, trx))) throw identityErrors.create.proof_replayed();
          const userId = await this.resolve(trx, request, attempt, peppered, seed, pubkeyHash, bytesToHex(signer));
          // Only the BTC key proved itself here (it signed the login message), so only it is stored
          // proven, taking the proof from any other account; the others are advertised, not proven.
          for (const key of keys) {
            const proven = key.asset === 'btc';
            if (proven) await deps.keys.releaseProof(userId, key, trx);
            await deps.keys.upsert(userId, key, proven, trx);
          }
          await deps.loginEvents.record({ userId, platform: 'extension', clientIp, fingerprint: seed }, trx);
          return deps.sessions.start(userId, 'extension', trx);
        }),
      // Two first logins of one wallet both create (or both prove) it; the retry logs into the winner's.
      [USERS_PUBKEY_HASH, PROVEN_KEY],
    );
  }

  /**
   * Validates every submitted key (one per asset and key type, in any order); a submitted BTC key
   * must be the proven one, and the BTC key on file is always the proven one.
   */
  private keysFor(submitted: SubmittedKey[], provenKeyHex: string): ReceivingKey[] {
    const keys = normaliseKeyList(submitted, this.deps.network);
    const btc = keys.find((key) => key.asset === 'btc');
    if (btc !== undefined && btc.publicKey !== provenKeyHex) throw identityErrors.create.key_mismatch();
    return [...keys.filter((key) => key.asset !== 'btc'), { asset: 'btc', keyType: 'primary', publicKey: provenKeyHex, publicSpendKey: null }];
  }

  private async resolve(trx: Knex.Transaction, request: ExtensionLoginRequest, attempt: RegistrationAttempt, peppered: string, seed: string, pubkeyHash: string, signerHex: string): Promise<string> {
    const { deps } = this;
    const known = await this.known(trx, peppered, seed);
    if (known !== null) return known;
    // An account without a BTC identity that already PROVED this key (a key proof on POST /keys,
    // e.g. a Nostr-registered wallet) is this wallet: it takes the pubkey_hash, never a new account.
    const holder = await deps.keys.provenOwner(btcPrimary(signerHex), trx);
    if (holder !== null) {
      if (await deps.identities.adoptPubkeyHash(holder, peppered, trx)) return holder;
      // A concurrent login of this wallet adopted it first: its UPDATE held the row until it
      // committed, so a fresh read sees the account now (never a new one, never the gates).
      const adopted = await this.known(trx, peppered, seed);
      if (adopted !== null) return adopted;
    }
    const rotation = request.rotation_signature;
    const rotated = rotation === undefined ? null : await this.rotationTarget(trx, rotation, request.timestamp, seed, pubkeyHash);
    // Rotation is a new pubkey for the gates too (spec): a re-pointed account is gated like a new one.
    await deps.gates.admit(attempt, trx);
    if (rotated !== null) {
      if (!(await deps.identities.repoint(rotated.id, rotated.pubkey_hash, peppered, trx))) throw identityErrors.create.identity_conflict();
      return rotated.id;
    }
    return deps.identities.create({ pubkeyHash: peppered, seedFingerprint: seed }, trx);
  }

  /** The account registered under this pubkey_hash (it records the seed if it had none), or null. */
  private async known(trx: Knex.Transaction, peppered: string, seed: string): Promise<string | null> {
    const known = await this.deps.identities.byPubkeyHash(peppered, trx);
    if (known === null) return null;
    await this.deps.identities.adoptSeed(known.id, seed, trx);
    return known.id;
  }

  /** The account with this seed whose BTC key on file signed the rotation message, if any. */
  private async rotationTarget(trx: Knex.Transaction, rotationSignature: string, timestamp: number, seed: string, pubkeyHash: string): Promise<IdentityRow | null> {
    const signer = btcSigner(keyRotationMessage(this.deps.service, pubkeyHash, timestamp), rotationSignature);
    if (signer === null) return null;
    const signerHex = bytesToHex(signer);
    // The seed only narrows the search; the account must have PROVED the key that signed (an
    // advertised, unproven key is anyone's to type in).
    for (const candidate of await this.deps.identities.bySeed(seed, trx)) {
      const onFile = await this.deps.keys.find(candidate.id, 'btc', 'primary', trx);
      if (onFile?.public_key === signerHex && onFile.proven) return candidate;
    }
    return null;
  }
}
