import { expect } from 'chai';
import { createECDH, createHash, createHmac, randomBytes } from 'node:crypto';
import { address as addressCodec, networks, payments, Psbt, Transaction } from 'bitcoinjs-lib';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { decrypt as nip44Decrypt, encrypt as nip44Encrypt, getConversationKey } from 'nostr-tools/nip44';
import {
  openPublicTip,
  openTargetedTip,
  parseTipClaim,
  parseTipLink,
  recipientNostrKey,
  sealPublicTip,
  sealTargetedTip,
  splitTargetedCiphertext,
  tipClaim,
  tipClaimText,
  tipShareLink,
  TipEnvelopeError,
  type Nip44Decrypter,
  type TipClaim,
  type TipEnvelopeErrorCode,
} from '@wallet/client';
import { eachDialect, nip44Decrypt as nip44Reference, rejectionOf } from '../harness/index.js';
import { freshBtcChain, SHARE_BASE, useChainFakes, useTipsWorld, type TipsWorld } from '../tips/harness.js';

/**
 * @wallet/client's tip envelopes (packages/client/src/tips): envelope v1 of docs/tips.md "The
 * claim key, byte for byte". Known answers are the doc's worked example, copied here as printed;
 * every other check opens what the client seals with NIP-44 v2 written out from the NIP on
 * node:crypto, and the end-to-end tests create, claim, sweep and settle tips on the fake chain.
 */

const hex = (text: string) => Buffer.from(text, 'hex');

/** docs/tips.md "Worked example (LTC, mainnet)", as printed. */
const EXAMPLE = {
  tipKey: 'a1a771f09c4c19e3665562cee03ea325d009aa4dbadbbd43bbcd5c6236afaac5',
  fragmentSecret: 'df57bff3401b91f1e3a7dd58f7c09e0983e5d8115dbb1db879da1db0ee3e45b1',
  publicNonce: 'e0de56650cce1c3c100f764245b97969fd8ca5b0d3269f8e086e4d9f032c64fa',
  recipientSecret: '09ee3db15f86af3b4e139cdc9293750be4f53ed487e3fc3f44c6f736797778f8',
  oneTimeKey: '9eea7eb9408cad9bbd06f970033f6937a9818ccf450a1997eed466b573e92e79',
  targetedNonce: '606c0c29ad9aeff29e383349de96ebd73492c615c8a02d15b626a0595910c133',
  claimPlaintext: '{"v":1,"asset":"ltc","key":"a1a771f09c4c19e3665562cee03ea325d009aa4dbadbbd43bbcd5c6236afaac5"}',
  secretHash: 'a1bb1b9eab4e5a7ca147d8116e72b9730ad61b7944f04853f881954b4b0b6724',
  publicCiphertext:
    'AuDeVmUMzhw8EA92QkW5eWn9jKWw0yafjghuTZ8DLGT6FDF1JRVwaV6dmuAsvSH//mGK0AzGWnqjAJL3EcOiCN6+HCSnHMzWU6vYfX7NQUemHsl8UAi37jnouTBv/D0yYeXymXze4rL5antF61azMxdn66H/UDFo70okcPMQQXfKzu4Z+ZvrbAvaW11lu2MnzLfz02xXM5CmkzJHqJ/GdNLuig==',
  recipientPubkey: 'c73c8ba9a13e7183296a13736bc7a0503608d5e06e19ff92078c54a5810b2933',
  targetedCiphertext:
    '75dd07eee42c878df01e11d539d417fe6db3bc281322eb6de1ece0c87000d9a3:AmBsDCmtmu/ynjgzSd6W69c0ksYVyKAtFbYmoFlZEMEzbdRJ1sZZgOQ92wK1jEExIUew+/COwGMICpmsEMLc8pSzSPFz9bSNph65pf3Uyzo0ACjyYk1G6gKhBJ43w1brR7SBBrnY+x9K/2pUSvOsCjaAcR7GF8hIihaSJUTJpxjRY8ROqFcgoct6ybh5gNX77zqxl8qQU4Xr6+kVw+HzKXdr9g==',
};
const EXAMPLE_CLAIM: TipClaim = { v: 1, asset: 'ltc', key: EXAMPLE.tipKey };

/** The public tip's conversation key as the doc defines it: HKDF-Extract = HMAC-SHA256(salt, secret). */
const publicKeyOf = (fragment: string) => createHmac('sha256', 'wallet-backend-tip-v1').update(hex(fragment)).digest();
/** NIP-44's conversation key between a secret and an x-only public key, by node's ECDH. */
function nip44KeyOf(secretHex: string, xOnly: string): Buffer {
  const ecdh = createECDH('secp256k1');
  ecdh.setPrivateKey(hex(secretHex));
  return createHmac('sha256', 'nip44-v2').update(ecdh.computeSecret(Buffer.concat([Buffer.from([2]), hex(xOnly)]))).digest();
}
function xOnlyOf(secretHex: string): string {
  const ecdh = createECDH('secp256k1');
  ecdh.setPrivateKey(hex(secretHex));
  return ecdh.getPublicKey('hex', 'compressed').slice(2);
}

/** A recipient's Nostr key held the way a NIP-07 extension holds it: the client only asks it to decrypt. */
function memoryDecrypter(secretHex: string): Nip44Decrypter & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    nip44: { decrypt: async (pubkey, payload) => (calls.push(pubkey), nip44Decrypt(payload, getConversationKey(hex(secretHex), pubkey))) },
  };
}

async function refusal(work: () => unknown): Promise<TipEnvelopeErrorCode> {
  const err = await rejectionOf(Promise.resolve().then(work));
  expect(err).to.be.instanceOf(TipEnvelopeError);
  return (err as TipEnvelopeError).code;
}

const fresh = () => randomBytes(32).toString('hex');
/** Flips one base64 character of the NIP-44 payload in the middle of the ciphertext (the MAC must catch it). */
function tamper(payload: string): string {
  const at = Math.floor(payload.length / 2);
  return payload.slice(0, at) + (payload[at] === 'A' ? 'B' : 'A') + payload.slice(at + 1);
}

describe('@wallet/client tips: known answers (docs/tips.md worked example)', () => {
  it('the claim plaintext is the printed JSON, byte for byte', () => {
    expect(tipClaimText(tipClaim('ltc', EXAMPLE.tipKey))).to.equal(EXAMPLE.claimPlaintext);
    expect(tipClaimText(tipClaim('ltc', EXAMPLE.tipKey.toUpperCase())), 'the key is stored lower-case').to.equal(EXAMPLE.claimPlaintext);
  });

  it('a public tip sealed with the printed secret and nonce is the printed fragment, secret_hash and ciphertext', () => {
    const sealed = sealPublicTip(EXAMPLE_CLAIM, { secret: hex(EXAMPLE.fragmentSecret), nonce: hex(EXAMPLE.publicNonce) });
    expect(sealed).to.deep.equal({ fragment: EXAMPLE.fragmentSecret, secret_hash: EXAMPLE.secretHash, ciphertext: EXAMPLE.publicCiphertext });
  });

  it('a targeted tip sealed with the printed one-time key and nonce to the printed recipient key is the printed ciphertext', () => {
    const sealed = sealTargetedTip(EXAMPLE_CLAIM, EXAMPLE.recipientPubkey, { oneTimeSecret: hex(EXAMPLE.oneTimeKey), nonce: hex(EXAMPLE.targetedNonce) });
    expect(sealed).to.deep.equal({ ciphertext: EXAMPLE.targetedCiphertext, one_time_pubkey: EXAMPLE.targetedCiphertext.slice(0, 64) });
    expect(sealTargetedTip(EXAMPLE_CLAIM, EXAMPLE.recipientPubkey.toUpperCase(), { oneTimeSecret: hex(EXAMPLE.oneTimeKey), nonce: hex(EXAMPLE.targetedNonce) }).ciphertext).to.equal(
      EXAMPLE.targetedCiphertext,
    );
  });

  it('the printed public ciphertext opens with the printed fragment to the printed claim', () => {
    expect(openPublicTip({ ciphertext: EXAMPLE.publicCiphertext, secret_hash: EXAMPLE.secretHash, asset: 'ltc' }, EXAMPLE.fragmentSecret)).to.deep.equal(EXAMPLE_CLAIM);
    expect(openPublicTip({ ciphertext: EXAMPLE.publicCiphertext, secret_hash: EXAMPLE.secretHash.toUpperCase() }, EXAMPLE.fragmentSecret.toUpperCase())).to.deep.equal(EXAMPLE_CLAIM);
  });

  it('the printed targeted ciphertext opens through the recipient’s key, which is asked with the printed one-time key', async () => {
    const decrypter = memoryDecrypter(EXAMPLE.recipientSecret);
    expect(await openTargetedTip({ ciphertext: EXAMPLE.targetedCiphertext, asset: 'ltc' }, decrypter)).to.deep.equal(EXAMPLE_CLAIM);
    expect(decrypter.calls).to.deep.equal([xOnlyOf(EXAMPLE.oneTimeKey)]);
    expect(xOnlyOf(EXAMPLE.recipientSecret), 'the printed recipient key is that secret’s').to.equal(EXAMPLE.recipientPubkey);
  });

  it('a claim link is the share URL, "#", the fragment; parsing one gives back the tip id and fragment', () => {
    const id = '3b1f0c6e-6d1a-4b53-9f0e-2a7c1d9e8b40';
    const link = tipShareLink(`${SHARE_BASE}${id}`, EXAMPLE.fragmentSecret);
    expect(link).to.equal(`https://wallet.example.test/tip/3b1f0c6e-6d1a-4b53-9f0e-2a7c1d9e8b40#${EXAMPLE.fragmentSecret}`);
    expect(parseTipLink(link)).to.deep.equal({ tip_id: id, fragment: EXAMPLE.fragmentSecret });
    expect(parseTipLink(`https://wallet.example.test/tip/${id.toUpperCase()}#${EXAMPLE.fragmentSecret.toUpperCase()}`)).to.deep.equal({ tip_id: id, fragment: EXAMPLE.fragmentSecret });
  });

  it('reads the recipient key from a NIP-05 document, lower-cased name; none for an unlinked user', () => {
    const doc = { names: { alice: EXAMPLE.recipientPubkey } };
    expect(recipientNostrKey(doc, 'Alice')).to.equal(EXAMPLE.recipientPubkey);
    expect(recipientNostrKey({ names: {} }, 'alice')).to.equal(null);
    expect(recipientNostrKey({ names: { alice: 'not a key' } }, 'alice')).to.equal(null);
    expect(recipientNostrKey(null, 'alice')).to.equal(null);
  });
});

describe('@wallet/client tips: round trips and refusals', () => {
  const claims: TipClaim[] = (['btc', 'ltc', 'xmr', 'wow', 'grin'] as const).map((asset) => ({ v: 1, asset, key: fresh() }));

  it('a public tip seals with a fresh secret and nonce each time; an independent NIP-44 opens it; the client opens it', () => {
    for (const claim of claims) {
      const sealed = sealPublicTip(claim);
      const again = sealPublicTip(claim);
      expect(sealed.fragment).to.match(/^[0-9a-f]{64}$/).and.not.equal(again.fragment);
      expect(sealed.secret_hash).to.equal(createHash('sha256').update(hex(sealed.fragment)).digest('hex'));
      expect(nip44Reference(sealed.ciphertext, publicKeyOf(sealed.fragment)).plaintext).to.equal(JSON.stringify({ v: 1, asset: claim.asset, key: claim.key }));
      expect(openPublicTip({ ...sealed, asset: claim.asset }, sealed.fragment)).to.deep.equal(claim);
    }
  });

  it('a targeted tip seals from a fresh one-time key each time; an independent NIP-44 opens it; the client opens it through the recipient key', async () => {
    const recipientSecret = fresh();
    const recipient = xOnlyOf(recipientSecret);
    for (const claim of claims) {
      const sealed = sealTargetedTip(claim, recipient);
      const again = sealTargetedTip(claim, recipient);
      expect(sealed.one_time_pubkey).to.match(/^[0-9a-f]{64}$/).and.not.equal(again.one_time_pubkey);
      const { one_time_pubkey, payload } = splitTargetedCiphertext(sealed.ciphertext);
      expect(one_time_pubkey).to.equal(sealed.one_time_pubkey);
      expect(nip44Reference(payload, nip44KeyOf(recipientSecret, one_time_pubkey)).plaintext).to.equal(JSON.stringify({ v: 1, asset: claim.asset, key: claim.key }));
      expect(await openTargetedTip({ ciphertext: sealed.ciphertext, asset: claim.asset }, memoryDecrypter(recipientSecret))).to.deep.equal(claim);
    }
  });

  it('a public tip: a wrong or cut secret is a damaged link; a secret that matches a forged secret_hash does not open it; a tampered payload is refused', async () => {
    const sealed = sealPublicTip(claims[0]!);
    const other = fresh();
    expect(await refusal(() => openPublicTip(sealed, other))).to.equal('tip_link_damaged');
    expect(await refusal(() => openPublicTip(sealed, sealed.fragment.slice(0, 63)))).to.equal('tip_link_damaged');
    expect(await refusal(() => openPublicTip(sealed, `${sealed.fragment}0`))).to.equal('tip_link_damaged');
    expect(await refusal(() => openPublicTip({ ...sealed, secret_hash: null }, sealed.fragment))).to.equal('tip_link_damaged');
    const forged = { ...sealed, secret_hash: createHash('sha256').update(hex(other)).digest('hex') };
    expect(await refusal(() => openPublicTip(forged, other))).to.equal('tip_envelope_unopenable');
    expect(await refusal(() => openPublicTip({ ...sealed, ciphertext: tamper(sealed.ciphertext) }, sealed.fragment))).to.equal('tip_envelope_unopenable');
    expect(await refusal(() => openPublicTip({ ...sealed, ciphertext: null }, sealed.fragment))).to.equal('tip_envelope_malformed');
    expect(await refusal(() => openPublicTip({ ...sealed, ciphertext: 'A'.repeat(4097) }, sealed.fragment))).to.equal('tip_envelope_malformed');
    expect(await refusal(() => openPublicTip({ ...sealed, asset: 'ltc' }, sealed.fragment)), 'a btc claim key for an ltc tip').to.equal('tip_asset_mismatch');
  });

  it('a targeted tip: the wrong Nostr key, a tampered payload, a swapped one-time key and a missing prefix are refused', async () => {
    const recipientSecret = fresh();
    const sealed = sealTargetedTip(claims[2]!, xOnlyOf(recipientSecret));
    const [oneTime, payload] = sealed.ciphertext.split(':') as [string, string];
    expect(await refusal(() => openTargetedTip(sealed, memoryDecrypter(fresh())))).to.equal('tip_envelope_unopenable');
    expect(await refusal(() => openTargetedTip({ ciphertext: `${oneTime}:${tamper(payload)}` }, memoryDecrypter(recipientSecret)))).to.equal('tip_envelope_unopenable');
    expect(await refusal(() => openTargetedTip({ ciphertext: `${xOnlyOf(fresh())}:${payload}` }, memoryDecrypter(recipientSecret)))).to.equal('tip_envelope_unopenable');
    expect(await refusal(() => openTargetedTip({ ciphertext: payload }, memoryDecrypter(recipientSecret)))).to.equal('tip_envelope_malformed');
    expect(await refusal(() => openTargetedTip({ ciphertext: `${oneTime}:` }, memoryDecrypter(recipientSecret)))).to.equal('tip_envelope_malformed');
    expect(await refusal(() => openTargetedTip({ ciphertext: null }, memoryDecrypter(recipientSecret)))).to.equal('tip_envelope_malformed');
    const refusing: Nip44Decrypter = { nip44: { decrypt: () => Promise.reject(new Error('user declined')) } };
    expect(await refusal(() => openTargetedTip(sealed, refusing))).to.equal('tip_envelope_unopenable');
    expect(await refusal(() => openTargetedTip({ ...sealed, asset: 'wow' }, memoryDecrypter(recipientSecret))), 'an xmr claim key for a wow tip').to.equal('tip_asset_mismatch');
  });

  it('an envelope that opens to anything but a v1 claim is refused', async () => {
    const secret = fresh();
    const secretHash = createHash('sha256').update(hex(secret)).digest('hex');
    // Sealed by NIP-44 itself (not the client), under the public tip's conversation key.
    const sealedText = (text: string) => ({ ciphertext: nip44Encrypt(text, publicKeyOf(secret)), secret_hash: secretHash });
    for (const text of [
      'not json',
      '[]',
      '{"v":2,"asset":"btc","key":"' + '1'.repeat(64) + '"}',
      '{"v":1,"asset":"doge","key":"' + '1'.repeat(64) + '"}',
      '{"v":1,"asset":"btc","key":"' + '1'.repeat(63) + '"}',
      '{"v":1,"asset":"btc","key":"' + 'A'.repeat(64) + '"}',
      '{"v":1,"asset":"btc","key":"' + '1'.repeat(64) + '","extra":1}',
      '{"v":1,"asset":"btc"}',
    ]) {
      expect(await refusal(() => openPublicTip(sealedText(text), secret)), text).to.equal('tip_claim_invalid');
    }
    expect(openPublicTip(sealedText(`{"key":"${'1'.repeat(64)}","asset":"grin","v":1}`), secret), 'another field order opens').to.deep.equal({ v: 1, asset: 'grin', key: '1'.repeat(64) });
    expect(parseTipClaim(EXAMPLE.claimPlaintext, 'ltc')).to.deep.equal(EXAMPLE_CLAIM);
  });

  it('refuses to seal what is not a claim, a secret or nonce that is not 32 bytes, a recipient key that is not a curve point', async () => {
    expect(await refusal(() => tipClaim('btc', 'ab'))).to.equal('tip_input_invalid');
    expect(await refusal(() => tipClaim('doge' as 'btc', fresh()))).to.equal('tip_input_invalid');
    expect(await refusal(() => sealPublicTip({ v: 1, asset: 'btc', key: 'zz'.repeat(32) }))).to.equal('tip_input_invalid');
    expect(await refusal(() => sealPublicTip(claims[0]!, { secret: new Uint8Array(31) }))).to.equal('tip_input_invalid');
    expect(await refusal(() => sealPublicTip(claims[0]!, { nonce: new Uint8Array(33) }))).to.equal('tip_input_invalid');
    expect(await refusal(() => sealTargetedTip(claims[0]!, 'ab'))).to.equal('tip_input_invalid');
    // x = 5 has no point on secp256k1 (5³ + 7 = 132 is not a square mod p).
    expect(await refusal(() => sealTargetedTip(claims[0]!, '5'.padStart(64, '0')))).to.equal('tip_input_invalid');
    expect(await refusal(() => sealTargetedTip(claims[0]!, EXAMPLE.recipientPubkey, { oneTimeSecret: new Uint8Array(32) }))).to.equal('tip_input_invalid');
    expect(await refusal(() => tipShareLink(`${SHARE_BASE}x#y`, fresh()))).to.equal('tip_input_invalid');
    expect(await refusal(() => tipShareLink(SHARE_BASE, 'abc'))).to.equal('tip_input_invalid');
    // The page at share_url reads the fragment: a server-given share URL must be http(s), and under the base the wallet expects.
    expect(await refusal(() => tipShareLink('javascript:alert(1)//', fresh()))).to.equal('tip_input_invalid');
    expect(await refusal(() => tipShareLink('https://evil.example/tip/1', fresh(), SHARE_BASE))).to.equal('tip_input_invalid');
    expect(tipShareLink(`${SHARE_BASE}1`, 'ab'.repeat(32), SHARE_BASE)).to.equal(`${SHARE_BASE}1#${'ab'.repeat(32)}`);
    expect(await refusal(() => parseTipLink(`${SHARE_BASE}3b1f0c6e-6d1a-4b53-9f0e-2a7c1d9e8b40`))).to.equal('tip_link_damaged');
    expect(await refusal(() => parseTipLink(`${SHARE_BASE}not-a-tip#${fresh()}`))).to.equal('tip_link_damaged');
  });
});

const TIPS = '/api/v1/tips/social';
const runTask = (w: TipsWorld, task: 'funding-watch' | 'sweep-reconciler') => w.t.backend.scheduler.runNow(`tips.${task}`);

/** A one-time BTC tip key and its P2WPKH address, as the sender's wallet makes them. */
function btcTipKey(): { key: string; address: string } {
  const key = secp256k1.utils.randomSecretKey();
  return { key: Buffer.from(key).toString('hex'), address: payments.p2wpkh({ pubkey: Buffer.from(secp256k1.getPublicKey(key, true)), network: networks.bitcoin }).address! };
}

/** A transaction paying `amount` to `address` from a made-up input, as a funding wallet would. */
function fundingTo(address: string, amount: number): string {
  const tx = new Transaction();
  tx.addInput(randomBytes(32), 0);
  tx.addOutput(addressCodec.toOutputScript(address, networks.bitcoin), amount);
  return tx.toHex();
}

/** The claimer's sweep: output 0 of the funding, signed with the opened claim key, to the claimer's own address. Fails unless the key spends the tip address. */
function sweepWith(claimKey: string, tipAddress: string, funding: { txid: string; amount: number }, to: string): string {
  const pubkey = Buffer.from(secp256k1.getPublicKey(hex(claimKey), true));
  const psbt = new Psbt({ network: networks.bitcoin })
    .addInput({ hash: funding.txid, index: 0, witnessUtxo: { script: addressCodec.toOutputScript(tipAddress, networks.bitcoin), value: funding.amount } })
    .addOutput({ address: to, value: funding.amount - 1_000 });
  psbt.signInput(0, { publicKey: pubkey, sign: (hash: Buffer) => Buffer.from(secp256k1.sign(hash, hex(claimKey), { prehash: false })) });
  expect(psbt.validateSignaturesOfInput(0, (key, hash, signature) => secp256k1.verify(signature, hash, key, { prehash: false })), 'the opened key signs for the tip address').to.equal(true);
  return psbt.finalizeAllInputs().extractTransaction().toHex();
}

eachDialect('@wallet/client tips: end to end over HTTP', (dialect) => {
  const chains = useChainFakes();
  const w = useTipsWorld(dialect, chains);
  let chain: ReturnType<typeof freshBtcChain>;
  beforeEach(() => (chain = freshBtcChain(chains)));

  /** Funds the tip address 2 deep, lets the funding worker see it, and expects the tip claimable. */
  async function fundedAndSeen(id: string): Promise<void> {
    await runTask(w, 'funding-watch');
    expect((await w.t.backend.db.knex('social_tips').where({ id }).first()).status).to.equal('pending');
  }

  /** The claimer sweeps with the key it opened, records the sweep, and the chain confirms it 2 deep: the reconciler settles the tip. */
  async function sweepAndSettle(id: string, claimerToken: string, claim: TipClaim, tipAddress: string, funding: { txid: string; amount: number }): Promise<void> {
    const sweep = sweepWith(claim.key, tipAddress, funding, btcTipKey().address);
    const sweepTxid = chain.put(sweep, null);
    const recorded = await w.t.client.post(`${TIPS}/${id}/confirm-sweep`, { sweep_txid: sweepTxid }, { token: claimerToken });
    expect([recorded.status, recorded.body], recorded.text).to.deep.equal([200, { tip_id: id, status: 'claiming', sweep_txid: sweepTxid, recorded: true }]);
    chain.put(sweep, 850_000);
    chains.btc.tip = 850_001;
    await runTask(w, 'sweep-reconciler');
    const sent = await w.t.client.get(`${TIPS}/sent`, { token: w.sender.token });
    expect(sent.body.tips.find((tip: { tip_id: string }) => tip.tip_id === id)).to.include({ status: 'claimed', sweep_txid: sweepTxid });
  }

  it('a public tip: sealed by the client, created, funded; the link holder claims, opens the claim key, sweeps with it; the tip is claimed', async () => {
    const tip = btcTipKey();
    const sealed = sealPublicTip(tipClaim('btc', tip.key));
    const fundingHex = fundingTo(tip.address, 50_000);
    const fundingTxid = chain.put(fundingHex, 849_000);
    const created = await w.t.client.post(
      TIPS,
      { asset: 'btc', amount: '50000', tip_address: tip.address, secret_hash: sealed.secret_hash, ciphertext: sealed.ciphertext, funding_txid: fundingTxid },
      { token: w.sender.token },
    );
    expect([created.status, created.body.status], created.text).to.deep.equal([200, 'pending_confirmation']);
    const link = tipShareLink(created.body.share_url, sealed.fragment);
    await fundedAndSeen(created.body.tip_id);

    // The holder of the link, with nothing else from the sender.
    const { tip_id, fragment } = parseTipLink(link);
    expect(tip_id).to.equal(created.body.tip_id);
    expect((await w.t.client.get(`${TIPS}/${tip_id}/public`)).body).to.include({ asset: 'btc', amount: '50000', status: 'pending', claimable: true });
    const claimed = await w.t.client.post(`${TIPS}/${tip_id}/claim`, undefined, { token: w.other.token });
    expect([claimed.status, claimed.body.status, claimed.body.ciphertext, claimed.body.secret_hash], claimed.text).to.deep.equal([200, 'claiming', sealed.ciphertext, sealed.secret_hash]);
    expect(await refusal(() => openPublicTip(claimed.body, fresh())), 'another link’s secret').to.equal('tip_link_damaged');
    const claim = openPublicTip(claimed.body, fragment);
    expect(claim).to.deep.equal({ v: 1, asset: 'btc', key: tip.key });
    await sweepAndSettle(tip_id, w.other.token, claim, claimed.body.tip_address, { txid: fundingTxid, amount: 50_000 });
    expect((await w.t.client.get(`${TIPS}/${tip_id}/public`)).body).to.include({ status: 'claimed', claimable: false });
  });

  it('a public draft: sealed first, funded with attach-funding, then claimed and settled the same way', async () => {
    const tip = btcTipKey();
    const sealed = sealPublicTip(tipClaim('btc', tip.key));
    const created = await w.t.client.post(TIPS, { asset: 'btc', amount: '60000', tip_address: tip.address, secret_hash: sealed.secret_hash, ciphertext: sealed.ciphertext, draft: true }, { token: w.sender.token });
    expect([created.status, created.body.status], created.text).to.deep.equal([200, 'draft']);
    const fundingTxid = chain.put(fundingTo(tip.address, 60_000), 849_000);
    expect((await w.t.client.post(`${TIPS}/${created.body.tip_id}/attach-funding`, { funding_txid: fundingTxid }, { token: w.sender.token })).body.status).to.equal('pending_confirmation');
    await fundedAndSeen(created.body.tip_id);
    const { tip_id, fragment } = parseTipLink(tipShareLink(created.body.share_url, sealed.fragment));
    const claimed = await w.t.client.post(`${TIPS}/${tip_id}/claim`, undefined, { token: w.other.token });
    const claim = openPublicTip(claimed.body, fragment);
    await sweepAndSettle(tip_id, w.other.token, claim, claimed.body.tip_address, { txid: fundingTxid, amount: 60_000 });
  });

  it('a targeted tip: sealed to the recipient’s directory key, created; only the recipient claims, opens it through its key, sweeps; the tip is claimed', async () => {
    const recipientSecret = fresh();
    await w.t.backend.db.knex('users').where({ id: w.recipient.userId }).update({ nostr_pubkey: xOnlyOf(recipientSecret) });

    // The sender's wallet: the recipient's key from the directory, then the envelope.
    const nip05 = await w.t.client.get(`/.well-known/nostr.json?name=${w.recipient.username}`);
    const recipientKey = recipientNostrKey(nip05.body, w.recipient.username);
    expect(recipientKey, nip05.text).to.equal(xOnlyOf(recipientSecret));
    const tip = btcTipKey();
    const sealed = sealTargetedTip(tipClaim('btc', tip.key), recipientKey!);
    const fundingTxid = chain.put(fundingTo(tip.address, 50_000), 849_000);
    const created = await w.t.client.post(
      TIPS,
      { asset: 'btc', amount: '50000', tip_address: tip.address, recipient: w.recipient.username, ciphertext: sealed.ciphertext, funding_txid: fundingTxid },
      { token: w.sender.token },
    );
    expect([created.status, created.body.status], created.text).to.deep.equal([200, 'pending_confirmation']);
    const id = created.body.tip_id as string;
    await fundedAndSeen(id);

    const stranger = await w.t.client.post(`${TIPS}/${id}/claim`, undefined, { token: w.other.token });
    expect([stranger.status, stranger.body.error?.code], 'nobody else may claim it').to.deep.equal([400, 'tip_unknown']);
    expect((await w.t.client.get(`${TIPS}/claimable`, { token: w.recipient.token })).body.tips.map((t: { tip_id: string }) => t.tip_id)).to.deep.equal([id]);
    const claimed = await w.t.client.post(`${TIPS}/${id}/claim`, undefined, { token: w.recipient.token });
    expect([claimed.status, claimed.body.status, claimed.body.ciphertext, claimed.body.secret_hash], claimed.text).to.deep.equal([200, 'claiming', sealed.ciphertext, null]);
    expect(await refusal(() => openTargetedTip(claimed.body, memoryDecrypter(fresh()))), 'another Nostr key').to.equal('tip_envelope_unopenable');
    const claim = await openTargetedTip(claimed.body, memoryDecrypter(recipientSecret));
    expect(claim).to.deep.equal({ v: 1, asset: 'btc', key: tip.key });
    await sweepAndSettle(id, w.recipient.token, claim, claimed.body.tip_address, { txid: fundingTxid, amount: 50_000 });
    expect((await w.t.client.get(`${TIPS}/inbox`, { token: w.recipient.token })).body.tips, 'settled: out of the inbox').to.deep.equal([]);
  });
});
