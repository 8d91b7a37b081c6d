import { secp256k1, schnorr } from '@noble/curves/secp256k1.js';
import { address as bitcoinAddress, initEccLib, networks, Transaction, type Network } from 'bitcoinjs-lib';
import type { ChainNetwork } from '../network.js';

export type UtxoAsset = 'btc' | 'ltc';

/** Litecoin's parameters (litecoin chainparams.cpp); bitcoinjs ships only Bitcoin's. */
const LITECOIN: Record<'mainnet' | 'testnet' | 'regtest', Network> = {
  mainnet: { messagePrefix: '\x19Litecoin Signed Message:\n', bech32: 'ltc', bip32: { public: 0x019da462, private: 0x019d9cfe }, pubKeyHash: 0x30, scriptHash: 0x32, wif: 0xb0 },
  testnet: { messagePrefix: '\x19Litecoin Signed Message:\n', bech32: 'tltc', bip32: { public: 0x0436f6e1, private: 0x0436ef7d }, pubKeyHash: 0x6f, scriptHash: 0x3a, wif: 0xef },
  regtest: { messagePrefix: '\x19Litecoin Signed Message:\n', bech32: 'rltc', bip32: { public: 0x0436f6e1, private: 0x0436ef7d }, pubKeyHash: 0x6f, scriptHash: 0x3a, wif: 0xef },
};

/** The bitcoinjs network of an asset on the deployment's network (stagenet has no UTXO meaning: testnet). */
export function utxoNetwork(asset: UtxoAsset, network: ChainNetwork): Network {
  const kind = network === 'regtest' ? 'regtest' : network === 'mainnet' ? 'mainnet' : 'testnet';
  if (asset === 'ltc') return LITECOIN[kind];
  return kind === 'mainnet' ? networks.bitcoin : kind === 'testnet' ? networks.testnet : networks.regtest;
}

let eccReady = false;
/**
 * bitcoinjs needs x-only point checks to decode taproot addresses; they come from @noble/curves
 * (tiny-secp256k1's interface), so no native module is involved.
 */
function ensureEcc(): void {
  if (eccReady) return;
  initEccLib({
    isXOnlyPoint(p: Uint8Array): boolean {
      try {
        schnorr.utils.lift_x(BigInt(`0x${Buffer.from(p).toString('hex')}`));
        return p.length === 32;
      } catch {
        return false;
      }
    },
    xOnlyPointAddTweak(p: Uint8Array, tweak: Uint8Array) {
      try {
        const P = schnorr.utils.lift_x(BigInt(`0x${Buffer.from(p).toString('hex')}`));
        const t = BigInt(`0x${Buffer.from(tweak).toString('hex')}`);
        if (t >= secp256k1.Point.Fn.ORDER) return null;
        const Q = t === 0n ? P : P.add(secp256k1.Point.BASE.multiply(t));
        if (Q.equals(secp256k1.Point.ZERO)) return null;
        const affine = Q.toAffine();
        return { parity: Number(affine.y & 1n) as 0 | 1, xOnlyPubkey: Q.toBytes(true).subarray(1) };
      } catch {
        return null;
      }
    },
  });
  eccReady = true;
}

/** The output script of `address` on that asset and network, or null: an LTC address on the BTC route is refused. */
export function outputScriptOf(addressText: string, asset: UtxoAsset, network: ChainNetwork): Uint8Array | null {
  ensureEcc();
  if (addressText.length < 14 || addressText.length > 100) return null;
  try {
    return bitcoinAddress.toOutputScript(addressText, utxoNetwork(asset, network));
  } catch {
    return null;
  }
}

/** A signed transaction must parse (and carry inputs and outputs) before any node sees it; returns its txid. */
export function parseTransactionHex(hex: string): { txid: string } | null {
  if (hex.length < 120 || hex.length > 2_000_000 || hex.length % 2 !== 0 || !/^[0-9a-fA-F]+$/.test(hex)) return null;
  try {
    const tx = Transaction.fromHex(hex);
    if (tx.ins.length === 0 || tx.outs.length === 0) return null;
    return { txid: tx.getId() };
  } catch {
    return null;
  }
}
