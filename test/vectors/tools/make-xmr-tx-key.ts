/**
 * Makes test/vectors/xmr-tx-key.json with Debian's monerod and monero-wallet-rpc in regtest:
 * wallet A mines, unlocks and pays wallet B's primary address three amounts in one transaction
 * (plus change), asking for the transaction's secret key; the daemon's decoded transaction, the
 * key and the wallet's own `check_tx_key` verdict are recorded. Run:
 *   npx tsx test/vectors/tools/make-xmr-tx-key.ts > test/vectors/xmr-tx-key.json
 */
import { startMonerod, startMoneroWallet } from '../../real/daemons.js';

const monerod = await startMonerod();
const walletA = await startMoneroWallet(monerod);
const walletB = await startMoneroWallet(monerod);
try {
  await walletA.rpc('create_wallet', { filename: 'a', language: 'English' });
  await walletB.rpc('create_wallet', { filename: 'b', language: 'English' });
  const { address: miner } = await walletA.rpc('get_address', { account_index: 0 });
  const { address: tipAddress } = await walletB.rpc('get_address', { account_index: 0 });
  const { key: viewKey } = await walletB.rpc('query_key', { key_type: 'view_key' });
  await monerod.rpc('generateblocks', { amount_of_blocks: 80, wallet_address: miner });
  await walletA.rpc('refresh', {});
  const destinations = [
    { amount: 1_234_567_890_123, address: tipAddress },
    { amount: 5_000_000_000, address: tipAddress },
  ];
  const sent = await walletA.rpc('transfer', { destinations, get_tx_key: true, priority: 0 });
  const unpaid = (await monerod.rpc('get_info', {})) as { height: number };
  await monerod.rpc('generateblocks', { amount_of_blocks: 10, wallet_address: miner });
  const check = await walletA.rpc('check_tx_key', { txid: sent.tx_hash, tx_key: sent.tx_key, address: tipAddress });
  const other = await walletA.rpc('get_address', { account_index: 0 });
  const checkOther = await walletA.rpc('check_tx_key', { txid: sent.tx_hash, tx_key: sent.tx_key, address: other.address });
  const response = await fetch(`${monerod.rpcUrl}/get_transactions`, { method: 'POST', body: JSON.stringify({ txs_hashes: [sent.tx_hash], decode_as_json: true }) });
  const decoded = (await response.json()) as { txs: Array<{ as_json: string; block_height: number }> };
  const { version } = (await monerod.rpc('get_version', {})) as { version: number };
  console.log(
    JSON.stringify(
      {
        description: 'A Monero transaction paying one address two outputs, with the transaction secret key, and the wallet’s own check_tx_key verdicts (for the address paid and for the sender’s own address).',
        software: `monerod and monero-wallet-rpc v0.18.0.0 (Debian 12 monero 0.18.0.0), regtest, daemon RPC version ${version}`,
        sources: ['transfer get_tx_key=true', 'check_tx_key', 'get_transactions decode_as_json=true', 'query_key view_key'],
        txid: sent.tx_hash,
        tx_key: sent.tx_key,
        paid_address: tipAddress,
        paid_address_view_key: viewKey,
        sender_address: other.address,
        amounts: destinations.map((d) => d.amount),
        check_tx_key: { paid: check, sender: checkOther },
        block_height: decoded.txs[0]!.block_height,
        height_before_mining: unpaid.height,
        as_json: decoded.txs[0]!.as_json,
      },
      null,
      2,
    ),
  );
} finally {
  await walletA.stop();
  await walletB.stop();
  await monerod.stop();
}
