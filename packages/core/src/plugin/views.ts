import type { Sessions, SignedActions } from '../auth/index.js';
import type { ChainAccess, CryptonoteChainReader, GrinChainReader, UtxoChainReader } from '../chains/index.js';
import type { Challenges } from '../challenges/index.js';
import type { Peppers } from '../crypto/index.js';
import type { PaymentProcessor } from './contract.js';

/*
 * What the plugin context hands out in place of core's own service objects: frozen objects of
 * closures. A plugin can call every operation, but no property it can walk leads to the token
 * key, the BTCPay API key or a node's secret that the service behind holds, and nothing it
 * replaces on them changes what core's own features call (the admin login verifies through the
 * same signed-action verifier). docs/architecture.md#security-model;
 * test/core/plugin/no-secrets.test.ts walks them.
 */

export function challengesView(challenges: Challenges): Challenges {
  return Object.freeze({
    issue: (purpose, options) => challenges.issue(purpose, options),
    consume: (nonce, purpose, options) => challenges.consume(nonce, purpose, options),
    take: (nonce, purpose, executor) => challenges.take(nonce, purpose, executor),
    sweepExpired: (now) => challenges.sweepExpired(now),
  } satisfies Challenges);
}

export function signedActionsView(signedActions: SignedActions): SignedActions {
  return Object.freeze({ verify: (input) => signedActions.verify(input) } satisfies SignedActions);
}

export function peppersView(peppers: Peppers): Peppers {
  return Object.freeze({ pepper: (value) => peppers.pepper(value), hashIp: (ip) => peppers.hashIp(ip) } satisfies Peppers);
}

export function sessionsView(sessions: Sessions): Sessions {
  return Object.freeze({
    start: (userId, platform, executor) => sessions.start(userId, platform, executor),
    refresh: (refreshToken) => sessions.refresh(refreshToken),
    logout: (refreshToken) => sessions.logout(refreshToken),
    authenticate: (authorization) => sessions.authenticate(authorization),
    revokeAllForUser: (userId, executor) => sessions.revokeAllForUser(userId, executor),
  } satisfies Sessions);
}

export function processorView(processor: PaymentProcessor): PaymentProcessor {
  return Object.freeze({
    createInvoice: (input) => processor.createInvoice(input),
    getInvoice: (invoiceId) => processor.getInvoice(invoiceId),
  } satisfies PaymentProcessor);
}

const utxoView = (reader: UtxoChainReader): UtxoChainReader =>
  Object.freeze({ received: (txid, address) => reader.received(txid, address), spent: (txid, address) => reader.spent(txid, address) } satisfies UtxoChainReader);
const cryptonoteView = (reader: CryptonoteChainReader): CryptonoteChainReader =>
  Object.freeze({
    receivedWithTxKey: (txid, txKey, address) => reader.receivedWithTxKey(txid, txKey, address),
    confirmations: (txid) => reader.confirmations(txid),
  } satisfies CryptonoteChainReader);
const grinView = (reader: GrinChainReader): GrinChainReader =>
  Object.freeze({ unspentOutput: (commitment) => reader.unspentOutput(commitment), kernel: (excess) => reader.kernel(excess) } satisfies GrinChainReader);

export function chainsView(chains: ChainAccess): ChainAccess {
  const view: ChainAccess = {
    provideHeight: (asset, source) => chains.provideHeight(asset, source),
    // A getter, read when asked: chains are enabled while plugins set up.
    get enabled() {
      return chains.enabled;
    },
    heights: (timeoutMs) => chains.heights(timeoutMs),
    utxo: (asset) => {
      const reader = chains.utxo(asset);
      return reader === null ? null : utxoView(reader);
    },
    cryptonote: (asset) => {
      const reader = chains.cryptonote(asset);
      return reader === null ? null : cryptonoteView(reader);
    },
    grin: () => {
      const reader = chains.grin();
      return reader === null ? null : grinView(reader);
    },
  };
  return Object.freeze(view);
}
