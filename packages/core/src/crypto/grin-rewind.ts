/**
 * Grin view-only scanning: rewinding a Bulletproof with the wallet's rewind hash to learn an
 * output's value and message without any spending key. Pure TypeScript: @noble's hashes and
 * ChaCha20, and libsecp256k1's divstep algorithms on limbs for the Jacobi symbol and the inverse
 * (`jacobi.ts`, `modinv.ts`); every step follows secp256k1-zkp's `rangeproof_impl.h`
 * (rewind_impl) and is checked against every case in test/vectors/grin. Scans use
 * `rewoundValue`, which does only what a scan reads.
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
import { jacobi } from './jacobi.js';
import { invert } from './modinv.js';

const Fn = secp256k1.Point.Fn;
const N = Fn.ORDER;
const P = secp256k1.Point.Fp.ORDER;
/** x-coordinate of Grin's value generator H (secp256k1-zkp constants). */
const H_X = hexToBytes('50929b74c1a04954b78b4b6035e97a5e078a5a0f28ec96d547bfee9ace803ac0');
/** The y of H is a quadratic non-residue (its bit in the transcript's parity byte). */
const H_Y_NON_RESIDUE = 1;
const MIN_PROOF = 193;
const MAX_PROOF = 1319;
const U64 = 0xffffffffffffffffn;

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

/** 32 big-endian bytes as an integer (four 64-bit reads: a third of the cost of a hex round trip). */
function toBig(bytes: Uint8Array): bigint {
  const view = new DataView(bytes.buffer, bytes.byteOffset, 32);
  return (view.getBigUint64(0) << 192n) | (view.getBigUint64(8) << 128n) | (view.getBigUint64(16) << 64n) | view.getBigUint64(24);
}
const to32 = (value: bigint): Uint8Array => hexToBytes(value.toString(16).padStart(64, '0'));
const mod = (a: bigint, m: bigint): bigint => ((a % m) + m) % m;

/** The shape of a Pedersen commitment: 0x08/0x09 ‖ 32-byte x. */
const commitmentShaped = (commit: Uint8Array): boolean => commit.length === 33 && (commit[0] === 0x08 || commit[0] === 0x09);

/** Pedersen commitment encoding: that shape, with x on the curve (x³ + 7 a square mod p). */
function commitmentValid(commit: Uint8Array): boolean {
  if (!commitmentShaped(commit)) return false;
  const x = toBig(commit.subarray(1));
  if (x >= P) return false;
  // x³ + 7 is never 0 (a point with y = 0 would have order 2; the group's order is prime): a symbol of 1 means a square.
  return jacobi((x * x * x + 7n) % P, P) === 1;
}

const ZERO_NONCE = new Uint8Array(12);
const ZERO_BLOCK = new Uint8Array(64);
const keystream = new Uint8Array(64);
/** The transcript hashes' input, re-filled for each output (a rewind runs synchronously, one at a time per thread). */
const transcript = new Uint8Array(97);
/** Its first 32 bytes: the running hash state. */
const state = transcript.subarray(0, 32);
const freshSha256 = sha256.create();
const sha256Work = sha256.create();

/**
 * state ← SHA-256(transcript), with one hasher reset from a fresh one: no allocation per hash,
 * a third faster than `sha256()` on these 97 bytes (four of them are most of a miss's cost).
 */
function hashTranscript(): void {
  freshSha256._cloneInto(sha256Work);
  sha256Work.update(transcript).digestInto(state);
}

/** Two scalars from one ChaCha20 block (key = seed, counter = idx, retry in the last nonce word). */
function chachaScalars(seed: Uint8Array, idx: number): [bigint, bigint] {
  for (let retry = 0; ; retry++) {
    let nonce = ZERO_NONCE;
    if (retry > 0) {
      nonce = new Uint8Array(12);
      new DataView(nonce.buffer).setUint32(8, retry, true);
    }
    chacha20(seed, nonce, ZERO_BLOCK, keystream, idx);
    const r1 = toBig(keystream.subarray(0, 32));
    const r2 = toBig(keystream.subarray(32, 64));
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

/** What opening a proof leaves for the rest of the rewind. */
interface Opened {
  /** μ + ρx + α (mod n), below 2²²⁴: message ‖ value. */
  s: bigint;
  x: bigint;
  z: bigint;
  taux: bigint;
}

/**
 * Steps 1–4 of the rewind without the commitment's curve check: the transcript, and s = μ + ρx + α,
 * or null when `nonce` does not open the proof (s does not start with four zero bytes). The
 * commitment's bytes enter the transcript either way.
 */
function openProof(commit: Uint8Array, proof: Uint8Array, nonce: Uint8Array, extraData: Uint8Array | null): Opened | null {
  if (!commitmentShaped(commit)) return null;
  if (proof.length < MIN_PROOF || proof.length > MAX_PROOF || nonce.length !== 32) return null;
  const taux = scalar(proof.subarray(0, 32));
  const mu = scalar(proof.subarray(32, 64));
  if (taux === null || mu === null) return null;
  const [alpha, rho] = chachaScalars(nonce, 0);

  // Every transcript hash reads 97 bytes (a 32-byte state, a parity byte, two 32-byte x-coordinates) and leaves its digest as the next state.
  const parity = proof[64]!;
  transcript.fill(0, 0, 32);
  transcript[32] = 2 * (commit[0]! & 1) + H_Y_NON_RESIDUE;
  transcript.set(commit.subarray(1), 33);
  transcript.set(H_X, 65);
  hashTranscript();
  if (extraData !== null) state.set(sha256(concatBytes(state, extraData)));
  transcript[32] = 2 * (parity & 1) + ((parity >> 1) & 1);
  transcript.set(proof.subarray(65, 129), 33);
  hashTranscript(); // y
  hashTranscript(); // z
  const z = scalar(state);
  if (z === null) return null;
  transcript[32] = 2 * ((parity >> 2) & 1) + ((parity >> 3) & 1);
  transcript.set(proof.subarray(129, 193), 33);
  hashTranscript();
  const x = scalar(state);
  if (x === null) return null;

  const s = (mu + rho * x + alpha) % N;
  return s >> 224n === 0n ? { s, x, z, taux } : null;
}

/** Rewinds one Bulletproof with `nonce` as secp256k1-zkp does (the commitment checked first); `extraData` stays null for Grin outputs. Never throws. */
export function rewindBulletproof(commit: Uint8Array, proof: Uint8Array, nonce: Uint8Array, extraData: Uint8Array | null = null): RewoundOutput | { ok: false; failure: RewindFailure } {
  if (!commitmentValid(commit)) return { ok: false, failure: 'commit_parse' };
  const opened = openProof(commit, proof, nonce, extraData);
  if (opened === null) return { ok: false, failure: 'rewind_failed' };
  const { s, x, z, taux } = opened;
  const [tau1, tau2] = chachaScalars(nonce, 1);
  const zz = (z * z) % N;
  const blind = mod(-(taux + tau1 * x + tau2 * ((x * x) % N)) * invert(zz, N), N);
  const sBytes = to32(s);
  return { ok: true, value: s & U64, message: sBytes.slice(4, 24), blind: to32(blind) };
}

/**
 * What a scan needs of a rewind: the output's value when `nonce` opens its proof, else null,
 * exactly when `rewindBulletproof(…).ok` (tests hold the two together). It checks the
 * commitment's curve point only for a proof the nonce opened (one output in 2³² of others'
 * opens by chance), since a failed rewind is skipped whatever failed; and it skips the blinding
 * factor, which grin-wallet's scan never uses.
 */
export function rewoundValue(commit: Uint8Array, proof: Uint8Array, nonce: Uint8Array): bigint | null {
  const opened = openProof(commit, proof, nonce, null);
  return opened !== null && commitmentValid(commit) ? opened.s & U64 : null;
}

/** The ProofBuilder message: 0, 0, switch type, then the 17-byte key id (depth + four u32 path steps). */
export function decodeGrinOutputMessage(message: Uint8Array): { switch_commitment_type: number; key_id: string; depth: number; path: number[] } | null {
  if (message.length !== 20 || message[0] !== 0 || message[1] !== 0 || message[2]! > 1 || message[3]! > 4) return null;
  const view = new DataView(message.buffer, message.byteOffset, message.byteLength);
  const depth = message[3]!;
  const path = Array.from({ length: depth }, (_, i) => view.getUint32(4 + 4 * i, false));
  return { switch_commitment_type: message[2]!, key_id: bytesToHex(message.subarray(3, 20)), depth, path };
}

/**
 * Hex of whole bytes in either case, decoded, or null for anything else. Node's decoder stops at
 * the first pair of ASCII characters that is not hex (a shorter result: a bad character or an odd
 * length) but reads a character above U+00FF by its low byte, so those are refused first (a
 * string with one takes more UTF-8 bytes than characters). Native: a 675-byte proof decodes
 * several times faster than a regex check and a JS decoder.
 */
function bytesOfHex(hex: unknown): Uint8Array | null {
  if (typeof hex !== 'string' || hex.length === 0 || Buffer.byteLength(hex, 'utf8') !== hex.length) return null;
  const bytes = Buffer.from(hex, 'hex');
  return bytes.length * 2 === hex.length ? bytes : null;
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
    const commit = bytesOfHex(output.commit);
    const proof = bytesOfHex(output.proof);
    if (commit === null || commit.length !== 33 || proof === null) continue;
    const nonce = grinRewindNonce(rewindHash, commit);
    if (nonce === null) continue;
    const value = rewoundValue(commit, proof, nonce);
    if (value === null) continue;
    total += value;
    found.push({
      commit: bytesToHex(commit),
      value,
      height: output.height,
      mmr_index: output.mmr_index,
      is_coinbase: output.is_coinbase,
      lock_height: output.is_coinbase ? output.height + coinbaseMaturity : output.height,
    });
  }
  return { outputs: found, total };
}
