/**
 * What a Monero/Wownero transaction paid an address, proven with the transaction's secret key
 * (the check `check_tx_key` makes in wallet2): no view key and no spend key is needed, so a
 * sender can prove a payment to a server that holds neither.
 *
 *   D   = 8·r·A                                  (r: tx secret key, A: the address's public view key)
 *   s_i = Hs(D ‖ varint(i))                      (Hs: Keccak-256 reduced mod ℓ)
 *   output i is the address's  ⇔  K_i = s_i·G + B  (B: the public spend key)
 *   amount_i = ecdh_i ⊕ Keccak("amount" ‖ s_i)[0..8], little-endian
 *   and it must open the commitment: C_i = Hs("commitment_mask" ‖ s_i)·G + amount_i·H
 *
 * The last line matters: the sender writes `ecdh_i` and could encrypt any amount; only an amount
 * that opens the output's commitment was really paid.
 *
 * @see monero-project/monero src/crypto/crypto.cpp (generate_key_derivation, derivation_to_scalar, derive_public_key),
 *      src/ringct/rctOps.cpp (ecdhDecode, genCommitmentMask, H), src/wallet/wallet2.cpp (check_tx_key_helper)
 * @module
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { concatBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { encodeVarint } from './cryptonote-base58.js';

const Point = ed25519.Point;
const L = Point.Fn.ORDER;
/** Monero's second generator H (rctTypes.h), the amount base of every commitment. */
const H = Point.fromHex('8b655970153799af2aeadc9ff1add0ea6c7251d54154cfa92c173a0dd39c1f94');
const AMOUNT = utf8ToBytes('amount');
const COMMITMENT_MASK = utf8ToBytes('commitment_mask');
/** RingCT types whose `ecdhInfo` carries an 8-byte amount and no mask (Bulletproof2, CLSAG, Bulletproof+). */
const COMPACT_ECDH_TYPES = new Set([4, 5, 6]);

const leToBigInt = (bytes: Uint8Array) => bytes.reduceRight((acc, byte) => (acc << 8n) | BigInt(byte), 0n);
const toLe32 = (value: bigint) => Uint8Array.from({ length: 32 }, (_, i) => Number((value >> BigInt(8 * i)) & 0xffn));
const hashToScalar = (...parts: Uint8Array[]) => leToBigInt(keccak_256(concatBytes(...parts))) % L;
const hex = (text: string) => Uint8Array.from(Buffer.from(text, 'hex'));

export interface TxKeyOutput {
  /** The one-time output key (64 hex). */
  key: string;
  /** The 8-byte encrypted amount (16 hex). */
  encryptedAmount: string;
  /** The amount commitment `outPk` (64 hex). */
  commitment: string;
}

export interface TxKeyReceipt {
  /** Sum of the proven outputs, in atomic units. */
  received: bigint;
  /** Indexes of the outputs that belong to the address and open their commitment. */
  outputs: number[];
}

/**
 * The outputs of a decoded transaction (daemon `get_transactions` with `decode_as_json`), or
 * null when it is not a RingCT transaction with compact amounts (nothing a current wallet makes).
 */
export function txKeyOutputsOf(decoded: unknown): TxKeyOutput[] | null {
  const tx = decoded as { vout?: unknown; rct_signatures?: { type?: unknown; ecdhInfo?: unknown; outPk?: unknown } } | null;
  const rct = tx?.rct_signatures;
  if (!Array.isArray(tx?.vout) || !COMPACT_ECDH_TYPES.has(rct?.type as number) || !Array.isArray(rct?.ecdhInfo) || !Array.isArray(rct?.outPk)) return null;
  const vout = tx.vout as Array<{ target?: { key?: unknown; tagged_key?: { key?: unknown } } }>;
  const ecdh = rct.ecdhInfo as Array<{ amount?: unknown }>;
  const outPk = rct.outPk as unknown[];
  if (ecdh.length !== vout.length || outPk.length !== vout.length) return null;
  const outputs: TxKeyOutput[] = [];
  for (let i = 0; i < vout.length; i++) {
    const key = vout[i]?.target?.tagged_key?.key ?? vout[i]?.target?.key;
    const encryptedAmount = ecdh[i]?.amount;
    const commitment = outPk[i];
    if (typeof key !== 'string' || !/^[0-9a-f]{64}$/.test(key)) return null;
    if (typeof encryptedAmount !== 'string' || !/^[0-9a-f]{16}$/.test(encryptedAmount)) return null;
    if (typeof commitment !== 'string' || !/^[0-9a-f]{64}$/.test(commitment)) return null;
    outputs.push({ key, encryptedAmount, commitment });
  }
  return outputs;
}

/**
 * What `outputs` paid the address (B, A) according to the transaction secret key `txKeyHex`
 * (64 hex, a little-endian scalar below ℓ). Null when the key is malformed, zero or not reduced.
 * An output whose key or commitment does not match counts nothing.
 */
export function receivedWithTxKey(txKeyHex: string, publicSpendKey: Uint8Array, publicViewKey: Uint8Array, outputs: readonly TxKeyOutput[]): TxKeyReceipt | null {
  if (!/^[0-9a-fA-F]{64}$/.test(txKeyHex)) return null;
  const r = leToBigInt(hex(txKeyHex)); // Buffer reads hex of either case
  if (r === 0n || r >= L) return null;
  let A: InstanceType<typeof Point>;
  let B: InstanceType<typeof Point>;
  try {
    A = Point.fromBytes(publicViewKey);
    B = Point.fromBytes(publicSpendKey);
  } catch {
    return null;
  }
  // 8·(r·A), as generate_key_derivation: multiply, then clear the cofactor by three doublings.
  const derivation = A.multiply(r).double().double().double().toBytes();
  const receipt: TxKeyReceipt = { received: 0n, outputs: [] };
  outputs.forEach((output, index) => {
    const s = hashToScalar(derivation, encodeVarint(index));
    if (s === 0n) return;
    if (!Point.BASE.multiply(s).add(B).equals(Point.fromHex(output.key))) return;
    const sBytes = toLe32(s);
    const amount = leToBigInt(hex(output.encryptedAmount)) ^ leToBigInt(keccak_256(concatBytes(AMOUNT, sBytes)).subarray(0, 8));
    const mask = hashToScalar(COMMITMENT_MASK, sBytes);
    const opened = Point.BASE.multiply(mask).add(H.multiplyUnsafe(amount));
    let commitment: InstanceType<typeof Point>;
    try {
      commitment = Point.fromHex(output.commitment);
    } catch {
      return;
    }
    if (!opened.equals(commitment)) return;
    receipt.received += amount;
    receipt.outputs.push(index);
  });
  return receipt;
}
