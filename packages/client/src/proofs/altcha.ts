/**
 * ALTCHA v2 proof of work (docs/wallet-integration.md §7), solved in pure JS: no WebCrypto,
 * no Node crypto, so it runs in any browser, worker or Node.
 * @module
 */
import { sha256, sha384, sha512 } from '@noble/hashes/sha2.js';
import { bytesToHex, concatBytes, hexToBytes } from '@noble/hashes/utils.js';
import { base64OfText } from './bytes.js';

/** The challenge `POST /api/v1/auth/pow-challenge` returns; sent back unchanged. */
export interface AltchaChallenge {
  parameters: {
    algorithm: string;
    cost: number;
    keyLength?: number;
    keyPrefix: string;
    keySignature?: string;
    /** 32 hex: decoded to bytes, never hashed as text. */
    nonce: string;
    /** 32 hex: decoded to bytes. */
    salt: string;
    data?: Record<string, unknown>;
    [extra: string]: unknown;
  };
  signature?: string;
  [extra: string]: unknown;
}

/** A solved challenge. */
export interface AltchaSolution {
  /** `altcha_solution`: base64 of `{"challenge", "solution": {"counter", "derivedKey"}}`. */
  payload: string;
  counter: number;
  /** Lower-case hex of the derived key. */
  derivedKey: string;
  /** How many counters were hashed (counter + 1 when counting from 0). */
  attempts: number;
}

/** Options of {@link solveAltcha}. */
export interface SolveAltchaOptions {
  /** Give up after this counter (default 2^32 − 1, the whole uint32 range). */
  maxCounter?: number;
  /** Stops the search (rejects with the signal's reason). */
  signal?: AbortSignal;
  /** Yields to the event loop every this many attempts (default 5 000) so a page stays responsive. */
  yieldEvery?: number;
}

const HASHES: Record<string, (data: Uint8Array) => Uint8Array> = { 'SHA-256': sha256, 'SHA-384': sha384, 'SHA-512': sha512 };

/**
 * The derived key for `counter`: `H(salt ‖ nonce ‖ uint32be(counter))`, re-hashed `cost − 1`
 * more times, truncated to `keyLength` bytes (altcha-lib v2's SHA derivation).
 */
export function altchaDeriveKey(parameters: AltchaChallenge['parameters'], counter: number): Uint8Array {
  const hash = HASHES[parameters.algorithm];
  if (hash === undefined) throw new Error(`unsupported ALTCHA algorithm ${parameters.algorithm}`);
  const counterBytes = new Uint8Array(4);
  new DataView(counterBytes.buffer).setUint32(0, counter, false);
  let key = hash(concatBytes(hexToBytes(parameters.salt), hexToBytes(parameters.nonce), counterBytes));
  for (let round = 1; round < Math.max(1, parameters.cost); round += 1) key = hash(key);
  return key.slice(0, parameters.keyLength ?? 32);
}

/** The most hash rounds per attempt a challenge may ask (this server asks 1). */
export const MAX_ALTCHA_COST = 1_000;

/**
 * Counts up from 0 until the derived key's hex starts with `keyPrefix`, and returns the
 * `altcha_solution` the server accepts (once, before `data.expires`), with the attempt count.
 * Throws when no counter up to `maxCounter` matches.
 */
export async function solveAltcha(challenge: AltchaChallenge, options: SolveAltchaOptions = {}): Promise<AltchaSolution> {
  const { parameters } = challenge;
  if (HASHES[parameters.algorithm] === undefined) throw new Error(`unsupported ALTCHA algorithm ${parameters.algorithm}`);
  const prefix = parameters.keyPrefix.toLowerCase();
  if (!/^[0-9a-f]+$/.test(prefix)) throw new Error('keyPrefix must be hex');
  // Each attempt hashes `cost` times: a server naming a huge cost would hold the wallet's thread for ever.
  if (!Number.isInteger(parameters.cost) || parameters.cost < 1 || parameters.cost > MAX_ALTCHA_COST) throw new Error(`ALTCHA cost must be a whole number from 1 to ${MAX_ALTCHA_COST}`);
  const max = Math.min(options.maxCounter ?? 0xffffffff, 0xffffffff);
  const yieldEvery = Math.max(1, options.yieldEvery ?? 5_000);
  for (let counter = 0; counter <= max; counter += 1) {
    if (counter > 0 && counter % yieldEvery === 0) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      options.signal?.throwIfAborted();
    }
    const derivedKey = bytesToHex(altchaDeriveKey(parameters, counter));
    if (derivedKey.startsWith(prefix)) {
      return { payload: base64OfText(JSON.stringify({ challenge, solution: { counter, derivedKey } })), counter, derivedKey, attempts: counter + 1 };
    }
  }
  throw new Error(`no ALTCHA solution up to counter ${max}`);
}
