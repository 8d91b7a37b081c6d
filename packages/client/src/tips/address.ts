import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bech32 } from '@scure/base';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { pubkeyHash } from '../proofs/index.js';
import type { TipClaim } from './claim.js';
import { TipEnvelopeError } from './errors.js';

/** The bech32 prefix of a BTC or LTC network's segwit addresses. */
export type SegwitPrefix = 'bc' | 'tb' | 'bcrt' | 'ltc' | 'tltc' | 'rltc';
const SEGWIT_PREFIXES: readonly string[] = ['bc', 'tb', 'bcrt', 'ltc', 'tltc', 'rltc'];

/**
 * The P2WPKH address a BTC or LTC tip's one-time key spends (BIP-173, witness v0, the HASH160 of
 * the compressed public key): the `tip_address` of `POST /api/v1/tips/social`, whose key the
 * claim envelope carries.
 */
export function tipAddress(key: string, prefix: SegwitPrefix): string {
  if (!/^[0-9a-fA-F]{64}$/.test(key)) throw new TipEnvelopeError('tip_input_invalid', 'a tip key is 64 hex characters');
  const publicKey = secp256k1.getPublicKey(hexToBytes(key.toLowerCase()), true);
  const program = hexToBytes(pubkeyHash(bytesToHex(publicKey)));
  return bech32.encode(prefix, [0, ...bech32.toWords(program)]);
}

/**
 * Throws `tip_claim_invalid` when a BTC or LTC claim's key does not spend `address` (the claim
 * answer's `tip_address`): a sender could seal a key that spends nothing. Other assets' keys are
 * not addresses' keys, so they pass unchecked.
 */
export function assertKeySpendsTip(claim: TipClaim, address: string | null | undefined): void {
  if (address === null || address === undefined || (claim.asset !== 'btc' && claim.asset !== 'ltc')) return;
  const lower = address.toLowerCase();
  const prefix = lower.slice(0, lower.lastIndexOf('1')) as SegwitPrefix;
  if (!SEGWIT_PREFIXES.includes(prefix) || tipAddress(claim.key, prefix) !== lower) throw new TipEnvelopeError('tip_claim_invalid', 'the sealed key does not spend this tip’s address');
}
