import { decodeCryptonoteAddress, receivedWithTxKey, txKeyOutputsOf } from '../../crypto/index.js';
import type { CryptonoteChainReader } from '../readers.js';
import type { CryptonoteDaemonClient } from './daemon-client.js';

/**
 * Payments proven with a transaction's secret key, and transaction depth, through the daemon
 * alone (monerod / wownerod `get_transactions`): no light-wallet account and no view key.
 */
export class CryptonoteReader implements CryptonoteChainReader {
  constructor(
    private readonly daemon: Pick<CryptonoteDaemonClient, 'decodedTransaction' | 'confirmations'>,
    private readonly asset: 'xmr' | 'wow',
  ) {}

  async receivedWithTxKey(txid: string, txKey: string, address: string) {
    const found = await this.daemon.decodedTransaction(txid.toLowerCase());
    if (found === null) return null;
    const decoded = decodeCryptonoteAddress(address, this.asset);
    const outputs = txKeyOutputsOf(found.decoded);
    // A transaction of another kind, or an address that is not one, proves no payment.
    const receipt = decoded === null || outputs === null ? null : receivedWithTxKey(txKey, decoded.publicSpendKey, decoded.publicViewKey, outputs);
    return { confirmations: found.confirmations, received: receipt?.received ?? 0n };
  }

  async confirmations(txid: string) {
    const found = await this.daemon.confirmations(txid.toLowerCase());
    return found.found ? found.confirmations : null;
  }
}
