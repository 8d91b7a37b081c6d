/**
 * BTC key control (docs/wallet-integration.md §1): the body of `POST /api/v1/auth/extension`,
 * which registers a new wallet or logs a known one in, and the key-rotation proof.
 * @module
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, concatBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { extensionLoginMessage, keyRotationMessage } from '../messages.js';
import { assertSignerAsset, pubkeyHash, type AssetBitcoinSigner } from './bitcoin-message.js';
import { unixSeconds } from './bytes.js';
import { gateFields, type GateInputs, type SubmittedKey } from './gates.js';

/**
 * The recommended `seed_fingerprint`: the first 16 bytes (32 hex) of
 * `SHA-256("wallet-backend seed fingerprint" ‖ seed)`. Not a secret; never the BIP32 fingerprint.
 */
export function seedFingerprint(seed: Uint8Array): string {
  return bytesToHex(sha256(concatBytes(utf8ToBytes('wallet-backend seed fingerprint'), seed))).slice(0, 32);
}

/** What {@link buildExtensionLogin} needs. */
export interface ExtensionLoginInput {
  /** The wallet's BTC identity key (Bitcoin magic). */
  signer: AssetBitcoinSigner;
  /** PUBLIC_API_URL exactly as the server is configured (it is signed verbatim). */
  service: string;
  /** 8–128 hex; see {@link seedFingerprint}. */
  seedFingerprint: string;
  /** Receiving keys to advertise. Default: the signing key as `btc`. A `btc` entry must be the signing key. */
  keys?: SubmittedKey[];
  /** Unix seconds, or a Date; within ±300 s of the server, each accepted once per identity. Default: now. */
  timestamp?: Date | number;
  /** The key the account proved before, when the BTC key changed but the seed did not: signs the rotation. */
  previousSigner?: AssetBitcoinSigner;
  /** Registration gates (a new identity only). */
  gates?: GateInputs;
}

/** The JSON body of `POST /api/v1/auth/extension`. */
export interface ExtensionLoginRequest extends GateInputs {
  pubkey_hash: string;
  seed_fingerprint: string;
  keys: SubmittedKey[];
  timestamp: number;
  signature: string;
  rotation_signature?: string;
}

/**
 * Builds `POST /api/v1/auth/extension`'s body: `pubkey_hash` = HASH160 of the signer's
 * compressed key, the login message signed by it (BTC magic; compressed or uncompressed key),
 * and with `previousSigner` the rotation message signed by the old key. The server answers the
 * token pair; `401 proof_replayed` means this timestamp already logged in (sign again a second later).
 */
export async function buildExtensionLogin(input: ExtensionLoginInput): Promise<ExtensionLoginRequest> {
  assertSignerAsset(input.signer, 'btc');
  const publicKey = await input.signer.publicKey();
  const hash = pubkeyHash(publicKey);
  const timestamp = typeof input.timestamp === 'number' ? input.timestamp : unixSeconds(input.timestamp);
  const body: ExtensionLoginRequest = {
    pubkey_hash: hash,
    seed_fingerprint: input.seedFingerprint,
    keys: input.keys ?? [{ asset: 'btc', public_key: publicKey }],
    timestamp,
    signature: await input.signer.signMessage(extensionLoginMessage(input.service, hash, timestamp)),
    ...gateFields(input.gates),
  };
  if (input.previousSigner !== undefined) {
    assertSignerAsset(input.previousSigner, 'btc');
    body.rotation_signature = await input.previousSigner.signMessage(keyRotationMessage(input.service, hash, timestamp));
  }
  return body;
}
