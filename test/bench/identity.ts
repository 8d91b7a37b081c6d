/**
 * `npm run bench:identity`: what a login costs. Times each signature verifier in-process, then
 * drives N extension logins through HTTP against a real backend on
 * SQLite and on Postgres, printing p50/p99 latency. BENCH_LOGINS (default 200, at most 280: one identity has that many distinct timestamps in the window) tunes it.
 */
import { performance } from 'node:perf_hooks';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import { MESSAGE_NETWORKS, recoverMessageSigner, verifyCryptonoteMessage, verifyGrinMessage, verifyNip98 } from '../../packages/core/src/crypto/index.js';
import { createTestBackend, DIALECTS } from '../harness/backend.js';
import { BtcKey, CryptonoteKey, extensionBody, GrinKey, NostrKey } from '../harness/wallet.js';
import { dropRunDatabase } from '../harness/postgres.js';

const LOGINS = Math.min(Number(process.env.BENCH_LOGINS ?? 200), 280);

function opsPerSecond(label: string, run: () => unknown, iterations = 300): void {
  run();
  const start = performance.now();
  for (let i = 0; i < iterations; i++) run();
  const ms = (performance.now() - start) / iterations;
  console.log(`${label.padEnd(34)} ${ms.toFixed(3).padStart(8)} ms/op  ${(1000 / ms).toFixed(0).padStart(6)} ops/s`);
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function main(): Promise<void> {
  const message = 'https://shop.example asks you to sign in with your wallet.';
  const btc = new BtcKey();
  const btcSig = btc.signMessage(message);
  opsPerSecond('bitcoin message recover', () => recoverMessageSigner(utf8ToBytes(message), btcSig, MESSAGE_NETWORKS['btc-mainnet']));
  const xmr = new CryptonoteKey('xmr');
  const xmrSig = xmr.sign(message);
  const address = xmr.address();
  opsPerSecond('monero SigV2 verify', () => verifyCryptonoteMessage({ asset: 'xmr', network: 'mainnet', address, message: utf8ToBytes(message), signature: xmrSig }), 100);
  const grin = new GrinKey();
  const grinSig = grin.sign(message);
  opsPerSecond('grin ed25519 verify', () => verifyGrinMessage(grin.publicKeyHex, utf8ToBytes(message), grinSig));
  const nostr = new NostrKey();
  const now = new Date();
  const header = nostr.nip98('/api/v1/auth/nostr', now);
  opsPerSecond('NIP-98 verify', () => verifyNip98({ authorization: header, url: 'https://wallet.example.test/api/v1/auth/nostr', method: 'POST', body: new Uint8Array(), now }));

  for (const dialect of DIALECTS) {
    const t = await createTestBackend(dialect, { realClock: true });
    try {
      const latencies: number[] = [];
      const key = new BtcKey();
      const base = Date.now();
      for (let i = 0; i < LOGINS; i++) {
        // Distinct timestamps inside the ±300 s window: each is accepted once per identity.
        const body = extensionBody(key, new Date(base - i * 1000));
        const start = performance.now();
        const res = await t.client.post('/api/v1/auth/extension', body);
        latencies.push(performance.now() - start);
        if (res.status !== 200) throw new Error(`extension login ${i}: ${res.status} ${res.text}`);
      }
      latencies.sort((a, b) => a - b);
      console.log(`${`extension login [${dialect}]`.padEnd(34)} p50 ${percentile(latencies, 50).toFixed(1)} ms  p99 ${percentile(latencies, 99).toFixed(1)} ms  (${LOGINS} logins)`);
    } finally {
      await t.close();
    }
  }
  await dropRunDatabase();
}

await main();
