import type { ChainAccess, UtxoReceipt } from '@wallet/backend-core';
import type { Asset } from './harness.js';

/** What each chain reader answers in a test; a reader left out answers as `unanswered` says. */
export interface ChainAnswers {
  received?: (txid: string, address: string) => UtxoReceipt | null;
  spent?: (txid: string, address: string) => { txid: string; confirmations: number } | null;
  unspentOutput?: (commitment: string) => { height: number; confirmations: number } | null;
  kernel?: (excess: string) => { height: number; confirmations: number } | null;
  receivedWithTxKey?: (txid: string, key: string, address: string) => { confirmations: number; received: bigint } | null;
  confirmations?: (txid: string) => number | null;
}

/**
 * A stub ChainAccess for calling the tips workers and sweepState directly: every read is
 * recorded in `calls`; a reader the test gave no answer returns null (`unanswered: 'null'`,
 * "the chain does not know it") or throws (`'throw'`, for "must not be read at all"). The
 * assets in `off` have no reader, as on a server without that chain.
 */
export function stubChains(answers: ChainAnswers, options: { off?: readonly Asset[]; unanswered?: 'null' | 'throw' } = {}) {
  const off = options.off ?? [];
  const calls: unknown[][] = [];
  const reader = (names: ReadonlyArray<keyof ChainAnswers>) =>
    Object.fromEntries(
      names.map((name) => [
        name,
        async (...args: unknown[]) => {
          calls.push([name, ...args]);
          const answer = answers[name] as ((...a: unknown[]) => unknown) | undefined;
          if (answer !== undefined) return answer(...args);
          if (options.unanswered === 'throw') throw new Error(`${name} should not be read`);
          return null;
        },
      ]),
    );
  const utxo = reader(['received', 'spent']);
  const grin = reader(['unspentOutput', 'kernel']);
  const cryptonote = reader(['receivedWithTxKey', 'confirmations']);
  const chains = {
    enabled: [],
    provideHeight: () => undefined,
    heights: async () => ({}),
    utxo: (asset: Asset) => (off.includes(asset) ? null : utxo),
    grin: () => (off.includes('grin') ? null : grin),
    cryptonote: (asset: Asset) => (off.includes(asset) ? null : cryptonote),
  } as unknown as ChainAccess;
  return { chains, calls };
}
