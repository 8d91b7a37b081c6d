import type { ChainAccess } from '@wallet/backend-core';
import { CONFIRMATIONS } from './options.js';
import type { StoredTip } from './tip.js';

/**
 * What the chain says of a tip's sweep: `confirmed` at the asset's depth, `unconfirmed` (not
 * seen, too shallow, or nothing recorded to look for), or `chain_off` (no reader for the asset
 * on this server now). An upstream that cannot be read throws its own 503 (it names itself).
 */
export type SweepState = 'confirmed' | 'unconfirmed' | 'chain_off';

/**
 * Whose sweep counts. `any`: BTC/LTC, any transaction spending the funding outputs (the first
 * sweep to win on chain wins, whoever recorded a txid). `recorded`: only the txid a claimer
 * recorded, which tells a claimer's sweep from the sender's own after a clawback.
 */
export type SweepEvidence = 'any' | 'recorded';

/**
 * The one rule for "has the sweep confirmed", shared by the reconciler and by clawback (spec
 * rule 4: clawback only while the sweep has not confirmed). BTC/LTC: a spend of the funding
 * output at depth; Grin: the commitment gone from the UTXO set AND the recorded kernel at depth
 * 10; XMR/WOW: the recorded sweep at depth (without the spend key no server can see which
 * transaction spent an output).
 */
export async function sweepState(chains: ChainAccess, tip: StoredTip, evidence: SweepEvidence): Promise<SweepState> {
  if (tip.asset === 'btc' || tip.asset === 'ltc') {
    const reader = chains.utxo(tip.asset);
    if (reader === null) return 'chain_off';
    if (tip.tip_address === null || tip.funding_txid === null) return 'unconfirmed';
    if (evidence === 'recorded' && tip.sweep_txid === null) return 'unconfirmed';
    const spend = await reader.spent(tip.funding_txid, tip.tip_address);
    if (spend === null || spend.confirmations < CONFIRMATIONS[tip.asset]) return 'unconfirmed';
    return evidence === 'any' || spend.txid.toLowerCase() === tip.sweep_txid ? 'confirmed' : 'unconfirmed';
  }
  if (tip.asset === 'grin') {
    const reader = chains.grin();
    if (reader === null) return 'chain_off';
    if (tip.grin_commitment === null || tip.sweep_txid === null) return 'unconfirmed';
    if ((await reader.unspentOutput(tip.grin_commitment)) !== null) return 'unconfirmed';
    const kernel = await reader.kernel(tip.sweep_txid);
    return kernel !== null && kernel.confirmations >= CONFIRMATIONS.grin ? 'confirmed' : 'unconfirmed';
  }
  const reader = chains.cryptonote(tip.asset);
  if (reader === null) return 'chain_off';
  if (tip.sweep_txid === null) return 'unconfirmed';
  return ((await reader.confirmations(tip.sweep_txid)) ?? 0) >= CONFIRMATIONS[tip.asset] ? 'confirmed' : 'unconfirmed';
}
