import { defineErrors } from '../errors/index.js';

/** Chain-access errors: a 503 names the upstream that failed. */
export const chainErrors = defineErrors({
  prices_off: { status: 404, message: 'The price feed is not enabled on this server.' },
  chain_disabled: { status: 400, message: 'This chain is not enabled on this server.' },
  grin_node_unavailable: { status: 503, message: 'The Grin node is unavailable; retry later.' },
  address_invalid: { status: 400, message: 'The address is not valid for this asset and network.' },
  tx_invalid: { status: 400, message: 'The transaction hex does not parse as a signed transaction.' },
  tx_rejected: { status: 400, message: 'The node rejected the transaction.' },
  esplora_unavailable: { status: 503, message: 'The Esplora server is unavailable; retry later.' },
  electrum_unavailable: { status: 503, message: 'The Electrum server is unavailable; retry later.' },
  view_key_mismatch: { status: 400, message: 'The view key does not belong to the address.' },
  lws_refused: { status: 400, message: 'The light-wallet server refused the request (account unknown or disabled, or bad key pair).' },
  lws_unavailable: { status: 503, message: 'The light-wallet server is unavailable; retry later.' },
  daemon_unavailable: { status: 503, message: 'The Monero/Wownero daemon is unavailable; retry later.' },
  grin_tx_rejected: { status: 400, message: 'The Grin node rejected the transaction.' },
});
