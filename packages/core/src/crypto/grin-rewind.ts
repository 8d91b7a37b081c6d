/**
 * Grin view-only scanning: rewinding a Bulletproof with the wallet's rewind hash to learn an
 * output's value and message without any spending key. Pure TypeScript on @noble; every step
 * follows secp256k1-zkp's `rangeproof_impl.h` (rewind_impl) and is checked against every case in
 * test/vectors/grin.
 *
 *   rewind_hash  = BLAKE2b-256(public root key, 33 bytes)
 *   nonce        = BLAKE2b-256(key = commitment (33 bytes), data = rewind_hash)
 *   (α, ρ)       = chacha(nonce, 0);  (τ1, τ2) = chacha(nonce, 1)        RFC 8439 block, zero nonce
 *   T            = SHA256(0³² ‖ pCH ‖ x(C) ‖ x(H));  y = SHA256(T ‖ pAS ‖ A‖S);  z = SHA256(y ‖ pAS ‖ A‖S)
 *   x            = SHA256(z ‖ pT ‖ T1‖T2)
 *   s            = μ + ρ·x + α  (mod n)  → must start with 4 zero bytes; message = s[4..24], value = s[24..32]
 *   blind        = −(τx + τ1·x + τ2·x²) / z²
 *
 * Rewind never verifies the proof (consensus already did for chain outputs): it only tells
 * whether the nonce opens it.
 * @module
 */
import { chacha20 } from '@noble/ciphers/chacha.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { blake2b } from '@noble/hashes/blake2.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, concatBytes, hexToBytes } from '@noble/hashes/utils.js';

const Fn = secp256k1.Point.Fn;
const N = Fn.ORDER;
const P = secp256k1.Point.Fp.ORDER;
/** x-coordinate of Grin's value generator H (secp256k1-zkp constants). */
const H_X = hexToBytes('50929b74c1a04954b78b4b6035e97a5e078a5a0f28ec96d547bfee9ace803ac0');
/** The y of H is a quadratic non-residue (its bit in the transcript's parity byte). */
const H_Y_NON_RESIDUE = 1;
const MIN_PROOF = 193;
const MAX_PROOF = 1319;

export type RewindFailure = 'commit_parse' | 'rewind_failed';

export interface RewoundOutput {
  ok: true;
  /** Nanogrin (u64). */
  value: bigint;
  /** The 20 bytes the prover embedded. */
  message: Uint8Array;
  /** −(τx + τ1x + τ2x²)/z²: the blinding factor only when the prover used one nonce for everything. */
  blind: Uint8Array;
}

/** Never called with no bytes (every caller passes a fixed-length, non-empty slice). */
const toBig = (bytes: Uint8Array): bigint => BigInt(`0x${bytesToHex(bytes)}`);
const to32 = (value: bigint): Uint8Array => hexToBytes(value.toString(16).padStart(64, '0'));
const mod = (a: bigint, m: bigint): bigint => ((a % m) + m) % m;

/**
 * The Legendre symbol (a/p) for a prime p that does not divide a, by the binary Jacobi algorithm
 * (quadratic reciprocity, no exponentiation): 1 for a square, −1 otherwise. About 7× faster than
 * Euler's criterion by BigInt exponentiation, and the check runs once per scanned output. (With
 * gcd(a, p) = 1 the loop always ends at n = 1, so the general algorithm's 0 cannot occur.)
 */
function legendre(a: bigint, n: bigint): number {
  let t = 1;
  a %= n;
  while (a !== 0n) {
    while ((a & 1n) === 0n) {
      a >>= 1n;
      const r = n & 7n;
      if (r === 3n || r === 5n) t = -t;
    }
    [a, n] = [n, a];
    if ((a & 3n) === 3n && (n & 3n) === 3n) t = -t;
    a %= n;
  }
  return t;
}

/** Pedersen commitment encoding: 0x08/0x09 ‖ x, with x on the curve (x³ + 7 a square mod p). */
function commitmentValid(commit: Uint8Array): boolean {
  if (commit.length !== 33 || (commit[0] !== 0x08 && commit[0] !== 0x09)) return false;
  const x = toBig(commit.subarray(1));
  if (x >= P) return false;
  // x³ + 7 is never 0 (a point with y = 0 would have order 2; the group's order is prime): a symbol of 1 means a square.
  return legendre((x * x * x + 7n) % P, P) === 1;
}

/** Two scalars from one ChaCha20 block (key = seed, counter = idx, retry in the last nonce word). */
function chachaScalars(seed: Uint8Array, idx: number): [bigint, bigint] {
  for (let retry = 0; ; retry++) {
    const nonce = new Uint8Array(12);
    new DataView(nonce.buffer).setUint32(8, retry, true);
    const block = chacha20(seed, nonce, new Uint8Array(64), undefined, idx);
    const r1 = toBig(block.subarray(0, 32));
    const r2 = toBig(block.subarray(32, 64));
    if (r1 < N && r2 < N) return [r1, r2];
  }
}

/** A scalar that must be in (0, n), or null. */
function scalar(bytes: Uint8Array): bigint | null {
  const value = toBig(bytes);
  return value === 0n || value >= N ? null : value;
}

/** BLAKE2b-256 of the 33-byte public root key: what a wallet hands to a view-only scanner. */
export function grinRewindHash(publicRootKey: Uint8Array): Uint8Array {
  return blake2b(publicRootKey, { dkLen: 32 });
}

/** The per-output nonce; null when it is not a valid secret key (chance ≈ 2⁻¹²⁸; grin-wallet aborts the scan). */
export function grinRewindNonce(rewindHash: Uint8Array, commit: Uint8Array): Uint8Array | null {
  const nonce = blake2b(rewindHash, { key: commit, dkLen: 32 });
  return scalar(nonce) === null ? null : nonce;
}

/** Parses the rewind hash as the owner API does: exactly 64 hex digits, any case. */
export function parseRewindHash(text: string): Uint8Array | null {
  return /^[0-9a-fA-F]{64}$/.test(text) ? hexToBytes(text) : null;
}

/** Rewinds one Bulletproof with `nonce`; `extraData` stays null for Grin outputs. Never throws. */
export function rewindBulletproof(commit: Uint8Array, proof: Uint8Array, nonce: Uint8Array, extraData: Uint8Array | null = null): RewoundOutput | { ok: false; failure: RewindFailure } {
  if (!commitmentValid(commit)) return { ok: false, failure: 'commit_parse' };
  const fail = { ok: false as const, failure: 'rewind_failed' as const };
  if (proof.length < MIN_PROOF || proof.length > MAX_PROOF || nonce.length !== 32) return fail;
  const taux = scalar(proof.subarray(0, 32));
  const mu = scalar(proof.subarray(32, 64));
  if (taux === null || mu === null) return fail;
  const [alpha, rho] = chachaScalars(nonce, 0);
  const [tau1, tau2] = chachaScalars(nonce, 1);

  const parity = proof[64]!;
  let t = sha256(concatBytes(new Uint8Array(32), Uint8Array.of(2 * (commit[0]! & 1) + H_Y_NON_RESIDUE), commit.subarray(1), H_X));
  if (extraData !== null) t = sha256(concatBytes(t, extraData));
  const pAS = Uint8Array.of(2 * (parity & 1) + ((parity >> 1) & 1));
  const y = sha256(concatBytes(t, pAS, proof.subarray(65, 129)));
  const zBytes = sha256(concatBytes(y, pAS, proof.subarray(65, 129)));
  const z = scalar(zBytes);
  if (z === null) return fail;
  const pT = Uint8Array.of(2 * ((parity >> 2) & 1) + ((parity >> 3) & 1));
  const x = scalar(sha256(concatBytes(zBytes, pT, proof.subarray(129, 193))));
  if (x === null) return fail;

  const s = to32(mod(mu + rho * x + alpha, N));
  if (s[0] !== 0 || s[1] !== 0 || s[2] !== 0 || s[3] !== 0) return fail;
  const zz = (z * z) % N;
  const blind = mod(-(taux + tau1 * x + tau2 * ((x * x) % N)) * Fn.inv(zz), N);
  return { ok: true, value: toBig(s.subarray(24, 32)), message: s.slice(4, 24), blind: to32(blind) };
}

/** The ProofBuilder message: 0, 0, switch type, then the 17-byte key id (depth + four u32 path steps). */
export function decodeGrinOutputMessage(message: Uint8Array): { switch_commitment_type: number; key_id: string; depth: number; path: number[] } | null {
  if (message.length !== 20 || message[0] !== 0 || message[1] !== 0 || message[2]! > 1 || message[3]! > 4) return null;
  const view = new DataView(message.buffer, message.byteOffset, message.byteLength);
  const depth = message[3]!;
  const path = Array.from({ length: depth }, (_, i) => view.getUint32(4 + 4 * i, false));
  return { switch_commitment_type: message[2]!, key_id: bytesToHex(message.subarray(3, 20)), depth, path };
}

export interface ChainOutput {
  commit: string;
  proof: string;
  is_coinbase: boolean;
  height: number;
  mmr_index: number;
}

export interface ScannedOutput {
  commit: string;
  value: bigint;
  height: number;
  mmr_index: number;
  is_coinbase: boolean;
  lock_height: number;
}

/**
 * grin-wallet's `collect_chain_outputs_rewind_hash`: every output whose proof the rewind hash
 * opens is the wallet's, with its value summed; coinbase outputs lock for `coinbaseMaturity`
 * blocks (1440 on mainnet and testnet). Malformed outputs are skipped, as the wallet skips them.
 */
export function scanGrinOutputs(rewindHash: Uint8Array, outputs: readonly ChainOutput[], coinbaseMaturity: number): { outputs: ScannedOutput[]; total: bigint } {
  const found: ScannedOutput[] = [];
  let total = 0n;
  for (const output of outputs) {
    if (!/^[0-9a-fA-F]{66}$/.test(output.commit) || !/^(?:[0-9a-fA-F]{2})+$/.test(output.proof)) continue;
    const commit = hexToBytes(output.commit);
    const nonce = grinRewindNonce(rewindHash, commit);
    if (nonce === null) continue;
    const rewound = rewindBulletproof(commit, hexToBytes(output.proof), nonce);
    if (!rewound.ok) continue;
    total += rewound.value;
    found.push({
      commit: output.commit.toLowerCase(),
      value: rewound.value,
      height: output.height,
      mmr_index: output.mmr_index,
      is_coinbase: output.is_coinbase,
      lock_height: output.is_coinbase ? output.height + coinbaseMaturity : output.height,
    });
  }
  return { outputs: found, total };
}
