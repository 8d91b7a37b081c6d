import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes, randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { ed25519 } from '@noble/curves/ed25519.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToNumberLE, numberToBytesLE } from '@noble/curves/utils.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { address as addressCodec, networks, Psbt, Transaction } from 'bitcoinjs-lib';
import {
  buildErasureProof,
  buildExtensionLogin,
  buildKeyProof,
  buildNostrLink,
  buildNostrLogin,
  buildNostrRegister,
  buildWebsiteLogin,
  compressPublicKey,
  createWalletClient,
  erasureApi,
  memoryBitcoinSigner,
  memoryNostrSigner,
  openPublicTip,
  parseTipLink,
  recipientNostrKey,
  sealPublicTip,
  tipAddress,
  tipClaim,
  tipShareLink,
  unwrap,
  WalletApiError,
  type ErasureAction,
  type components,
  type MemoryBitcoinSigner,
  type NostrSigner,
  type WalletApi,
} from '@wallet/client';
import { buildCryptonoteKeyProof, buildCryptonoteWebsiteLogin, memoryCryptonoteSigner } from '@wallet/client/cryptonote';
import { buildGrinKeyProofs, buildGrinWebsiteLogin, memoryGrinSigner } from '@wallet/client/grin';
import { startServer, type RunningServer } from '@wallet/server';
import { EsploraFake } from '../fakes/esplora.js';
import { btcpayEnv, GreenfieldFake } from '../fakes/greenfield.js';
import { FakeUtxoChain } from '../fakes/utxo-chain.js';
import { eachDialect, freePort, freshDatabaseUrl, rejectionOf, SECRETS_ENV, useFakes } from '../harness/index.js';

/**
 * A wallet built only on @wallet/client (its typed HTTP client, erasureApi and the proof
 * builders with memory signers) against the reference server (`startServer`), one server per
 * dialect with tips, premium and erasure on, BTC on the fake Esplora chain and payments on the
 * fake BTCPay. The test itself uses the harness and fakes only for set-up and for independent
 * checks (the database, the fake chain, the fake processor).
 */

const ORIGIN = 'https://shop.example';
const SEED_FINGERPRINT = 'a1b2c3d4';
const SHARE_PATH = '/tip/';

/** A refusal's stable code, through the typed client's `WalletApiError`. */
async function codeOf(work: Promise<unknown>): Promise<string> {
  const err = await rejectionOf(work);
  expect(err, String(err)).to.be.instanceOf(WalletApiError);
  return (err as WalletApiError).code;
}

// Key material a wallet would hold (the client takes signers, never makes keys).
const randomSecret = (): Uint8Array => secp256k1.utils.randomSecretKey();
const L = 2n ** 252n + 27742317777372353535851937790883648493n;
const randomScalarHex = () => bytesToHex(numberToBytesLE((bytesToNumberLE(ed25519.utils.randomSecretKey()) % (L - 1n)) + 1n, 32));
const cryptonoteSigner = (asset: 'xmr' | 'wow') => memoryCryptonoteSigner({ asset, spendKey: randomScalarHex(), viewKey: randomScalarHex(), network: 'mainnet' });

type Schema = components['schemas'];

/** A session as a wallet keeps it: the token pair, and a typed client that sends the current access token. */
interface Session {
  userId: string;
  access: string;
  refresh: string;
  api: WalletApi;
}

eachDialect('@wallet/client end to end against the reference server', (dialect) => {
  const [esplora, btcpay] = useFakes(new EsploraFake(), new GreenfieldFake());
  let running: RunningServer;
  let dataDir: string;
  let baseUrl: string;
  /** A client with no session (public routes, logins). */
  let anon: WalletApi;
  const chain = new FakeUtxoChain(networks.bitcoin);

  before(async function () {
    this.timeout(30_000);
    dataDir = mkdtempSync(join(tmpdir(), 'wallet-client-e2e-'));
    baseUrl = `http://127.0.0.1:${await freePort()}`;
    esplora.chain = chain;
    esplora.tip = 850_000;
    running = await startServer(
      {
        DATA_DIR: dataDir,
        PORT: new URL(baseUrl).port,
        HOST: '127.0.0.1',
        PUBLIC_API_URL: baseUrl,
        DATABASE_URL: await freshDatabaseUrl(dialect),
        LOG_LEVEL: 'silent',
        ...SECRETS_ENV,
        ...btcpayEnv(btcpay),
        REGISTRATION_REQUIRE_PAYMENT: 'false',
        BTC_ESPLORA_URL: esplora.url,
        FEATURE_TIPS: 'true',
        TIP_SHARE_BASE: `${baseUrl}${SHARE_PATH}`,
        PREMIUM_ENABLED: 'true',
        PREMIUM_PLANS: 'month:30:0.0001,year:365:0.001',
        RELAY_URL: 'wss://relay.example.test',
        RELAY_WRITE_POLICY: 'premium-post',
        FEATURE_ERASURE: 'true',
      },
      { write: () => undefined },
    );
    expect(running.url).to.equal(baseUrl);
    anon = createWalletClient({ baseUrl });
  });
  after(async () => {
    await running?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const db = () => running.backend.db.knex;

  /** A session from a login answer, with its own typed client. */
  function sessionOf(auth: { user_id: string; access_token: string; refresh_token: string }): Session {
    const session: Session = { userId: auth.user_id, access: auth.access_token, refresh: auth.refresh_token, api: undefined as never };
    session.api = createWalletClient({ baseUrl, accessToken: () => session.access });
    return session;
  }

  /** `timestamp`: a second not used yet by this key (a login body is accepted once: proof_replayed). */
  async function extensionLogin(signer: MemoryBitcoinSigner, timestamp?: Date): Promise<Session> {
    const body = await buildExtensionLogin({ signer, service: baseUrl, seedFingerprint: SEED_FINGERPRINT, ...(timestamp === undefined ? {} : { timestamp }) });
    return sessionOf(unwrap(await anon.POST('/api/v1/auth/extension', { body })));
  }

  async function nostrRegister(signer: NostrSigner, mergeSigner?: MemoryBitcoinSigner): Promise<Session> {
    const { nonce } = unwrap(await anon.GET('/api/v1/auth/nostr/register-challenge'));
    const body = await buildNostrRegister({ signer, service: baseUrl, nonce, seedFingerprint: SEED_FINGERPRINT, ...(mergeSigner ? { mergeSigner } : {}) });
    return sessionOf(unwrap(await anon.POST('/api/v1/auth/nostr/register', { body })));
  }

  async function nostrLogin(signer: NostrSigner): Promise<Session> {
    const { authorization } = await buildNostrLogin({ signer, service: baseUrl });
    return sessionOf(unwrap(await anon.POST('/api/v1/auth/nostr', { headers: { Authorization: authorization } })));
  }

  const websiteChallenge = async () => unwrap(await anon.POST('/api/v1/auth/website/challenge', { body: { origin: ORIGIN } }));

  describe('accounts: register, prove keys, log in with every asset', () => {
    it('registers with Nostr alone (nostr_register): a new account whose npub is its identity; logs in with NIP-98', async () => {
      const nostr = memoryNostrSigner(randomSecret());
      const registered = await nostrRegister(nostr);
      expect(registered.userId).to.match(/^[0-9a-f-]{36}$/);
      const me = unwrap(await registered.api.GET('/api/v1/auth/me'));
      expect(me.id).to.equal(registered.userId);
      expect((await db()('users').where({ id: registered.userId }).first()).nostr_pubkey, 'the database holds the npub').to.equal(nostr.getPublicKey());
      const again = await nostrLogin(nostr);
      expect(again.userId).to.equal(registered.userId);
    });

    it('registers with a BTC key (extension), joins a Nostr key by merge proof, proves LTC/XMR/WOW/Grin keys and logs in with each', async function () {
      this.timeout(30_000);
      const btcSecret = randomSecret();
      const btc = memoryBitcoinSigner(btcSecret);
      const first = await extensionLogin(btc);
      // Extension login again (each in a second of its own), the same key sent uncompressed: the same account.
      expect((await extensionLogin(btc, new Date(Date.now() - 2_000))).userId).to.equal(first.userId);
      expect((await extensionLogin(memoryBitcoinSigner(btcSecret, { compressed: false }), new Date(Date.now() - 4_000))).userId).to.equal(first.userId);
      // The same signed login sent twice: the second is a replay.
      const once = await buildExtensionLogin({ signer: btc, service: baseUrl, seedFingerprint: SEED_FINGERPRINT, timestamp: new Date(Date.now() - 6_000) });
      unwrap(await anon.POST('/api/v1/auth/extension', { body: once }));
      expect(await codeOf(anon.POST('/api/v1/auth/extension', { body: once }).then(unwrap))).to.equal('proof_replayed');

      // Nostr register with the BTC key's merge proof joins that account; NIP-98 login reaches it.
      const nostr = memoryNostrSigner(randomSecret());
      expect((await nostrRegister(nostr, btc)).userId).to.equal(first.userId);
      expect((await nostrLogin(nostr)).userId).to.equal(first.userId);

      const { api, userId } = first;
      const proveAndLogIn = async (proof: Schema['RegisterKeyRequest'], login: () => Promise<Schema['WebsiteVerifyRequest']>) => {
        const stored = unwrap(await api.POST('/api/v1/keys', { body: proof }));
        // An uncompressed LTC key is stored compressed (one identity per key).
        const expected = proof.asset === 'ltc' ? compressPublicKey(proof.public_key) : proof.public_key;
        expect(stored, proof.asset).to.include({ asset: proof.asset, public_key: expected, proven: true });
        const auth = unwrap(await anon.POST('/api/v1/auth/website/verify', { body: await login() }));
        expect(auth, `${proof.asset} ${proof.public_key}`).to.include({ user_id: userId, platform: 'web' });
      };
      for (const compressed of [true, false]) {
        const ltc = memoryBitcoinSigner(randomSecret(), { asset: 'ltc', compressed });
        await proveAndLogIn(await buildKeyProof({ service: baseUrl, userId, asset: 'ltc', signer: ltc }), async () =>
          buildWebsiteLogin({ challenge: await websiteChallenge(), asset: 'ltc', signer: ltc, expectedOrigin: ORIGIN, expectedService: baseUrl }),
        );
      }
      for (const asset of ['xmr', 'wow'] as const) {
        const signer = cryptonoteSigner(asset);
        await proveAndLogIn(await buildCryptonoteKeyProof({ service: baseUrl, userId, signer }), async () =>
          buildCryptonoteWebsiteLogin({ challenge: await websiteChallenge(), signer, expectedOrigin: ORIGIN, expectedService: baseUrl }),
        );
      }
      const grin = memoryGrinSigner(ed25519.utils.randomSecretKey());
      const [primary, slatepack] = await buildGrinKeyProofs({ service: baseUrl, userId, signer: grin, hrp: 'grin' });
      await proveAndLogIn(primary!, async () => buildGrinWebsiteLogin({ challenge: await websiteChallenge(), signer: grin, key: { form: 'key' }, expectedOrigin: ORIGIN, expectedService: baseUrl }));
      await proveAndLogIn(slatepack!, async () => buildGrinWebsiteLogin({ challenge: await websiteChallenge(), signer: grin, key: { form: 'slatepack', hrp: 'grin' }, expectedOrigin: ORIGIN, expectedService: baseUrl }));

      // Independently: the proven keys are the account's in the database.
      const rows: { asset: string }[] = await db()('user_keys').where({ user_id: userId }).select('asset');
      expect(new Set(rows.map((row) => row.asset))).to.include.members(['ltc', 'xmr', 'wow', 'grin']);

      // Refusals: a key proof made for another account; a website login with a key never proven.
      const other = memoryBitcoinSigner(randomSecret(), { asset: 'ltc' });
      const foreign = await buildKeyProof({ service: baseUrl, userId: randomUUID(), asset: 'ltc', signer: other });
      expect(await codeOf(api.POST('/api/v1/keys', { body: foreign }).then(unwrap))).to.equal('key_proof_invalid');
      const unknown = await buildWebsiteLogin({ challenge: await websiteChallenge(), asset: 'ltc', signer: other, expectedOrigin: ORIGIN, expectedService: baseUrl });
      const refused = (await rejectionOf(anon.POST('/api/v1/auth/website/verify', { body: unknown }).then(unwrap))) as WalletApiError;
      expect([refused.status, refused.code]).to.deep.equal([401, 'website_wallet_unknown']);
    });
  });

  describe('username and session', () => {
    it('sets a username, reads it back, looks it up, and finds the linked npub through NIP-05; a bad one is username_invalid', async () => {
      const nostr = memoryNostrSigner(randomSecret());
      const session = await extensionLogin(memoryBitcoinSigner(randomSecret()));
      const { nonce } = unwrap(await session.api.GET('/api/v1/auth/nostr/link-challenge'));
      const linked = unwrap(await session.api.POST('/api/v1/auth/nostr/link', { body: await buildNostrLink({ signer: nostr, service: baseUrl, nonce }) }));
      expect(linked.nostr_pubkey).to.equal(nostr.getPublicKey());

      const username = `e2e${randomBytes(4).toString('hex')}`;
      expect(await codeOf(session.api.POST('/api/v1/users/me/username', { body: { username: 'no spaces allowed' } }).then(unwrap))).to.equal('username_invalid');
      expect(unwrap(await session.api.POST('/api/v1/users/me/username', { body: { username } }))).to.include({ username });
      expect(unwrap(await session.api.GET('/api/v1/users/me/username'))).to.include({ username });
      expect(unwrap(await anon.GET('/api/v1/usernames/{username}', { params: { path: { username } } }))).to.include({ user_id: session.userId });
      const nip05 = unwrap(await anon.GET('/.well-known/nostr.json', { params: { query: { name: username } } }));
      expect(recipientNostrKey(nip05, username)).to.equal(nostr.getPublicKey());
      expect((await db()('users').where({ id: session.userId }).first()).username).to.equal(username);

      // The handle is taken for anyone else.
      const other = await extensionLogin(memoryBitcoinSigner(randomSecret()));
      expect(await codeOf(other.api.POST('/api/v1/users/me/username', { body: { username } }).then(unwrap))).to.equal('username_unavailable');
    });

    it('refreshes the session (the old refresh token is then refused) and logs out (the last one is refused)', async () => {
      const session = await extensionLogin(memoryBitcoinSigner(randomSecret()));
      const first = session.refresh;
      const rotated = unwrap(await anon.POST('/api/v1/auth/refresh', { body: { refresh_token: first } }));
      expect(rotated.user_id).to.equal(session.userId);
      expect(rotated.refresh_token).to.not.equal(first);
      Object.assign(session, { access: rotated.access_token, refresh: rotated.refresh_token });
      expect(unwrap(await session.api.GET('/api/v1/auth/me')).id).to.equal(session.userId);

      const reused = (await rejectionOf(anon.POST('/api/v1/auth/refresh', { body: { refresh_token: first } }).then(unwrap))) as WalletApiError;
      expect([reused.status, reused.code]).to.deep.equal([401, 'invalid_refresh_token']);

      unwrap(await anon.POST('/api/v1/auth/logout', { body: { refresh_token: session.refresh } }));
      expect(await codeOf(anon.POST('/api/v1/auth/refresh', { body: { refresh_token: session.refresh } }).then(unwrap))).to.equal('invalid_refresh_token');
    });
  });

  describe('tips: a public tip from create to claimed on the fake chain', () => {
    /** A funding wallet's transaction paying `amount` to `address` (test side: the fake chain's money). */
    function fundingTo(address: string, amount: number): string {
      const tx = new Transaction();
      tx.addInput(randomBytes(32), 0);
      tx.addOutput(addressCodec.toOutputScript(address, networks.bitcoin), amount);
      return tx.toHex();
    }
    /** The claimer's sweep of output 0, signed with the opened key (the client builds no transactions: bitcoinjs-lib and noble do). */
    function sweepWith(key: string, from: string, funding: { txid: string; amount: number }, to: string): string {
      const secret = Buffer.from(key, 'hex');
      const psbt = new Psbt({ network: networks.bitcoin })
        .addInput({ hash: funding.txid, index: 0, witnessUtxo: { script: addressCodec.toOutputScript(from, networks.bitcoin), value: funding.amount } })
        .addOutput({ address: to, value: funding.amount - 1_000 });
      psbt.signInput(0, { publicKey: Buffer.from(secp256k1.getPublicKey(secret, true)), sign: (hash: Buffer) => Buffer.from(secp256k1.sign(hash, secret, { prehash: false })) });
      expect(psbt.validateSignaturesOfInput(0, (pubkey, hash, signature) => secp256k1.verify(signature, hash, pubkey, { prehash: false })), 'the opened key spends the tip address').to.equal(true);
      return psbt.finalizeAllInputs().extractTransaction().toHex();
    }
    /** Runs a tips worker by hand; `runNow` answers false when the server's own timer is running it, so wait for that run and go again. */
    async function runTask(task: 'funding-watch' | 'sweep-reconciler'): Promise<void> {
      while (!(await running.backend.scheduler.runNow(`tips.${task}`))) await new Promise((resolve) => setTimeout(resolve, 20));
    }

    it('the sender seals and creates it; the link holder claims, opens the key, sweeps, confirms; the reconciler settles it', async function () {
      this.timeout(30_000);
      const sender = await extensionLogin(memoryBitcoinSigner(randomSecret()));
      const claimer = await nostrRegister(memoryNostrSigner(randomSecret()));

      // Sender: a one-time key, its address, the sealed envelope; the funding goes on chain 1,000 blocks deep.
      const tipKey = bytesToHex(randomSecret());
      const address = tipAddress(tipKey, 'bc');
      const sealed = sealPublicTip(tipClaim('btc', tipKey));
      const fundingTxid = chain.put(fundingTo(address, 50_000), 849_000);
      const created = unwrap(
        await sender.api.POST('/api/v1/tips/social', {
          body: { asset: 'btc', amount: '50000', tip_address: address, secret_hash: sealed.secret_hash, ciphertext: sealed.ciphertext, funding_txid: fundingTxid, draft: false },
        }),
      );
      expect(created.status).to.equal('pending_confirmation');
      expect(created.share_url).to.equal(`${baseUrl}${SHARE_PATH}${created.tip_id}`);
      const link = tipShareLink(created.share_url, sealed.fragment);
      await runTask('funding-watch');
      expect((await db()('social_tips').where({ id: created.tip_id }).first()).status, 'the funding worker saw it').to.equal('pending');

      // The link holder, with nothing else from the sender.
      const { tip_id, fragment } = parseTipLink(link);
      expect(unwrap(await anon.GET('/api/v1/tips/social/{tip_id}/public', { params: { path: { tip_id } } }))).to.include({ asset: 'btc', amount: '50000', status: 'pending', claimable: true });
      const claimed = unwrap(await claimer.api.POST('/api/v1/tips/social/{tip_id}/claim', { params: { path: { tip_id } } }));
      expect(claimed).to.include({ status: 'claiming', ciphertext: sealed.ciphertext, secret_hash: sealed.secret_hash, tip_address: address });
      const claim = openPublicTip(claimed, fragment);
      expect(claim).to.deep.equal({ v: 1, asset: 'btc', key: tipKey });

      const sweep = sweepWith(claim.key, address, { txid: fundingTxid, amount: 50_000 }, tipAddress(bytesToHex(randomSecret()), 'bc'));
      const sweepTxid = chain.put(sweep, null);
      // Someone who never claimed it cannot record a sweep.
      const third = await extensionLogin(memoryBitcoinSigner(randomSecret()));
      expect(await codeOf(third.api.POST('/api/v1/tips/social/{tip_id}/confirm-sweep', { params: { path: { tip_id } }, body: { sweep_txid: sweepTxid } }).then(unwrap))).to.equal('tip_not_claimer');
      const recorded = unwrap(await claimer.api.POST('/api/v1/tips/social/{tip_id}/confirm-sweep', { params: { path: { tip_id } }, body: { sweep_txid: sweepTxid } }));
      expect(recorded).to.deep.equal({ tip_id, status: 'claiming', sweep_txid: sweepTxid, recorded: true });
      chain.put(sweep, 850_000);
      esplora.tip = 850_001;
      await runTask('sweep-reconciler');

      const sent = unwrap(await sender.api.GET('/api/v1/tips/social/sent'));
      expect(sent.tips.find((tip) => tip.tip_id === tip_id)).to.include({ status: 'claimed', sweep_txid: sweepTxid });
      expect(unwrap(await anon.GET('/api/v1/tips/social/{tip_id}/public', { params: { path: { tip_id } } }))).to.include({ status: 'claimed', claimable: false });
      expect((await db()('social_tips').where({ id: tip_id }).first()).status).to.equal('claimed');
    });
  });

  describe('premium: invoice, settle at BTCPay, activate', () => {
    it('an invoice on the fake BTCPay, settled there, activates; status is active; unpaid and reused invoices are refused', async () => {
      const nostr = memoryNostrSigner(randomSecret());
      const session = await nostrRegister(nostr);
      expect(await codeOf(session.api.POST('/api/v1/premium/invoice', { body: { plan: 'decade' } }).then(unwrap))).to.equal('premium_plan_unknown');
      const invoice = unwrap(await session.api.POST('/api/v1/premium/invoice', { body: { plan: 'month' } }));
      expect(invoice).to.include({ plan: 'month', days: 30, amount: '0.0001', currency: 'BTC' });
      expect(btcpay.invoices.has(invoice.invoice_id), 'the processor holds the invoice').to.equal(true);
      expect(await codeOf(session.api.POST('/api/v1/premium/activate', { body: { invoice_id: invoice.invoice_id } }).then(unwrap))).to.equal('premium_invoice_unpaid');

      btcpay.setStatus(invoice.invoice_id, 'Settled');
      const activated = unwrap(await session.api.POST('/api/v1/premium/activate', { body: { invoice_id: invoice.invoice_id } }));
      expect(activated).to.include({ active: true, nostr_pubkey: nostr.getPublicKey() });
      const until = Date.parse(activated.premium_until!);
      expect(until).to.be.within(Date.now() + 29 * 86_400_000, Date.now() + 31 * 86_400_000);
      const status = unwrap(await session.api.GET('/api/v1/premium/status'));
      expect(status).to.include({ active: true, premium_until: activated.premium_until });
      expect(status.invoices.map((i) => [i.invoice_id, i.activated_at === null])).to.deep.equal([[invoice.invoice_id, false]]);
      expect(await codeOf(session.api.POST('/api/v1/premium/activate', { body: { invoice_id: invoice.invoice_id } }).then(unwrap))).to.equal('premium_invoice_used');
    });

    it('an account without a linked npub is refused an invoice', async () => {
      const session = await extensionLogin(memoryBitcoinSigner(randomSecret()));
      expect(await codeOf(session.api.POST('/api/v1/premium/invoice', { body: { plan: 'month' } }).then(unwrap))).to.equal('premium_nostr_not_linked');
    });
  });

  describe('erasure: export, request, confirm, cancel', () => {
    it('each action by a client-built proof; each has a refusal with its stable code', async function () {
      this.timeout(30_000);
      const nostr = memoryNostrSigner(randomSecret());
      const session = await nostrRegister(nostr);
      const username = `gone${randomBytes(4).toString('hex')}`;
      unwrap(await session.api.POST('/api/v1/users/me/username', { body: { username } }));
      const erasure = erasureApi({ baseUrl });
      const proof = async (action: ErasureAction, erasureId?: string) =>
        buildErasureProof({ signer: nostr, service: baseUrl, action, nonce: (await erasure.challenge(`erasure_${action}`)).nonce, ...(erasureId === undefined ? {} : { erasureId }) });

      // Export: the account's own data; a proof made for another action is refused.
      const exported = await erasure.exportAccount(await proof('export'));
      expect(exported.format).to.equal('wallet-backend-export/1');
      expect(JSON.stringify(exported.sections.core)).to.include(username).and.include(session.userId);
      expect(await codeOf(erasure.exportAccount(await proof('request')))).to.equal('signed_action_invalid');

      // Request; a nonce used once is refused the second time.
      const requestProof = await proof('request');
      const requested = await erasure.request(requestProof);
      expect(requested.status).to.equal('requested');
      expect(requested.confirm_by).to.be.a('string');
      expect(await codeOf(erasure.request(requestProof))).to.equal('nonce_invalid');

      // Confirm; an id that is not this account's request is not found. A confirmed erasure freezes logins.
      const stranger = randomUUID();
      expect(await codeOf(erasure.confirm(stranger, await proof('confirm', stranger)))).to.equal('erasure_not_found');
      const confirmed = await erasure.confirm(requested.erasure_id, await proof('confirm', requested.erasure_id));
      expect(confirmed).to.include({ erasure_id: requested.erasure_id, status: 'confirmed' });
      expect(confirmed.due_at).to.be.a('string');
      const frozen = (await rejectionOf(nostrLogin(nostr))) as WalletApiError;
      expect([frozen.status, frozen.code]).to.deep.equal([403, 'account_erasure_pending']);
      expect(await codeOf(anon.POST('/api/v1/auth/refresh', { body: { refresh_token: session.refresh } }).then(unwrap))).to.equal('account_erasure_pending');

      // Cancel: a proof bound to another request is refused; the right one cancels (again: the same answer); the account comes back; the cancelled request cannot be confirmed.
      expect(await codeOf(erasure.cancel(requested.erasure_id, await proof('cancel', stranger)))).to.equal('signed_action_invalid');
      const cancelled = await erasure.cancel(requested.erasure_id, await proof('cancel', requested.erasure_id));
      expect(cancelled).to.deep.equal({ erasure_id: requested.erasure_id, status: 'cancelled', confirm_by: null, due_at: null });
      expect(await erasure.cancel(requested.erasure_id, await proof('cancel', requested.erasure_id))).to.deep.equal(cancelled);
      expect(await codeOf(erasure.confirm(requested.erasure_id, await proof('confirm', requested.erasure_id)))).to.equal('erasure_not_confirmable');
      expect((await nostrLogin(nostr)).userId).to.equal(session.userId);
      expect((await db()('users').where({ id: session.userId }).first()).username, 'nothing was erased').to.equal(username);
    });
  });
});
