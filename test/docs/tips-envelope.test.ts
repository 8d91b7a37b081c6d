import { expect } from 'chai';
import { createECDH, createHash, createHmac, hkdfSync } from 'node:crypto';
import { payments } from 'bitcoinjs-lib';
import { eachDialect, nip44Decrypt } from '../harness/index.js';
import { useChainFakes, useTipsWorld } from '../tips/harness.js';
import { fencedBlockIn, readDoc, runSnippet } from './doc-snippets.js';

/**
 * docs/tips.md "The claim key, byte for byte": every printed value is remade here without the
 * doc's snippet (node:crypto's SHA-256, HMAC, HKDF, ECDH and ChaCha20, bitcoinjs for the
 * address), the snippet reproduces them, and the printed create request round-trips through the
 * server on both dialects.
 */
const doc = readDoc('tips.md');
const table = (marker: string) =>
  Object.fromEntries(
    fencedBlockIn(doc, marker, 'text')
      .trim()
      .split('\n')
      .map((line) => {
        const at = line.search(/ {2,}|(?<=ciphertext) (?=[0-9a-f]{64}:)/);
        return [line.slice(0, at).trim(), line.slice(at).trim()];
      }),
  ) as Record<string, string>;
const inputs = table('tip key (ltc private key)');
const made = table('tip public key');
const createBody = JSON.parse(fencedBlockIn(doc, '"ciphertext":"AuDe', 'json')) as Record<string, string>;
const snippet = fencedBlockIn(doc, 'function sealPublic', 'js');

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest();
const hex = (text: string) => Buffer.from(text, 'hex');
const LTC_MAINNET = { messagePrefix: '\x19Litecoin Signed Message:\n', bech32: 'ltc', bip32: { public: 0x019da462, private: 0x019d9cfe }, pubKeyHash: 0x30, scriptHash: 0x32, wif: 0xb0 };

/** The x coordinate of a·B for a secp256k1 secret and an x-only (even y) public key. */
function sharedX(secretHex: string, xOnly: string): Buffer {
  const ecdh = createECDH('secp256k1');
  ecdh.setPrivateKey(hex(secretHex));
  return ecdh.computeSecret(Buffer.concat([Buffer.from([2]), hex(xOnly)]));
}
const xOnlyOf = (secretHex: string) => {
  const ecdh = createECDH('secp256k1');
  ecdh.setPrivateKey(hex(secretHex));
  return ecdh.getPublicKey(null, 'compressed').subarray(1).toString('hex');
};

describe('docs/tips.md: the claim key, byte for byte', () => {
  it('prints inputs that are SHA-256 of their labels', () => {
    const label = (name: string) => sha256(`wallet-backend tips example: ${name}`).toString('hex');
    expect(inputs).to.deep.equal({
      'tip key (ltc private key)': label('tip key'),
      'fragment secret': label('fragment secret'),
      'public tip nonce': label('nonce'),
      "recipient's Nostr secret": label('recipient nostr key'),
      'one-time sealing key': label('one-time key'),
      'targeted tip nonce': label('nonce 2'),
    });
  });

  it('prints the tip key, address, plaintext and secret hash the inputs give', () => {
    const ecdh = createECDH('secp256k1');
    ecdh.setPrivateKey(hex(inputs['tip key (ltc private key)']!));
    const publicKey = ecdh.getPublicKey(null, 'compressed');
    expect(made['tip public key']).to.equal(publicKey.toString('hex'));
    expect(made.tip_address).to.equal(payments.p2wpkh({ pubkey: publicKey, network: LTC_MAINNET }).address);
    expect(made['claim plaintext']).to.equal(`{"v":1,"asset":"ltc","key":"${inputs['tip key (ltc private key)']}"}`);
    expect(made.secret_hash).to.equal(sha256(hex(inputs['fragment secret']!)).toString('hex'));
    expect(made['share URL']).to.equal(`<share_url>#${inputs['fragment secret']}`);
  });

  it('prints a public ciphertext that NIP-44 v2, written out independently, opens under HKDF-Extract(salt, secret) to the plaintext, laid out as described', () => {
    const conversationKey = createHmac('sha256', 'wallet-backend-tip-v1').update(hex(inputs['fragment secret']!)).digest();
    const opened = nip44Decrypt(made['public ciphertext']!, conversationKey);
    expect(opened.plaintext).to.equal(made['claim plaintext']);
    expect(opened.payload.subarray(1, 33).toString('hex')).to.equal(inputs['public tip nonce']);
    expect([Buffer.byteLength(opened.plaintext), opened.padded.length, opened.payload.length]).to.deep.equal([94, 98, 163]);
    expect(opened.padded.subarray(96).equals(Buffer.alloc(2))).to.equal(true);
    // The same extract step as node's HKDF (extract-then-expand to 32 bytes with an empty info is a different value, so this pins "extract only").
    expect(Buffer.from(hkdfSync('sha256', hex(inputs['fragment secret']!), 'wallet-backend-tip-v1', '', 32)).equals(conversationKey)).to.equal(false);
  });

  it('prints a targeted ciphertext: the one-time key, then NIP-44 v2 from it to the recipient’s Nostr key', () => {
    expect(made['recipient pubkey']).to.equal(xOnlyOf(inputs["recipient's Nostr secret"]!));
    const [oneTime, payload] = made['targeted ciphertext']!.split(':');
    expect(oneTime).to.equal(xOnlyOf(inputs['one-time sealing key']!));
    const conversationKey = createHmac('sha256', 'nip44-v2').update(sharedX(inputs["recipient's Nostr secret"]!, oneTime!)).digest();
    const opened = nip44Decrypt(payload!, conversationKey);
    expect(opened.plaintext).to.equal(made['claim plaintext']);
    expect(opened.payload.subarray(1, 33).toString('hex')).to.equal(inputs['targeted tip nonce']);
    // Either side's ECDH gives the same key: the sealing key with the recipient's public key.
    expect(sharedX(inputs['one-time sealing key']!, made['recipient pubkey']!).equals(sharedX(inputs["recipient's Nostr secret"]!, oneTime!))).to.equal(true);
  });

  it('the snippet, as printed, makes exactly these values and opens them; a damaged link is refused', () => {
    const driver = `
const [tipKey, secret, nonce, oneTime, nonce2, recipientSecret] = ${JSON.stringify([inputs['tip key (ltc private key)'], inputs['fragment secret'], inputs['public tip nonce'], inputs['one-time sealing key'], inputs['targeted tip nonce'], inputs["recipient's Nostr secret"]])}.map(hexToBytes);
const claim = claimText('ltc', bytesToHex(tipKey));
const sealed = sealPublic(claim, secret, nonce);
const targeted = sealTargeted(claim, getPublicKey(recipientSecret), oneTime, nonce2);
const fresh = sealPublic(claim, secret);
let damaged = '';
try { openPublic(sealed.ciphertext, bytesToHex(secret).slice(0, 63) + '0', sealed.secret_hash); } catch (err) { damaged = err.message; }
console.log(JSON.stringify({
  claim, sealed, targeted, damaged, fresh: fresh.ciphertext,
  openedPublic: openPublic(sealed.ciphertext, sealed.fragment, sealed.secret_hash),
  openedTargeted: openTargeted(targeted, recipientSecret),
  openedFresh: openPublic(fresh.ciphertext, fresh.fragment, fresh.secret_hash),
}));`;
    const r = runSnippet<Record<string, unknown>>(snippet, driver);
    const key = inputs['tip key (ltc private key)'];
    const opened = { v: 1, asset: 'ltc', key };
    expect(r).to.deep.equal({
      claim: made['claim plaintext'],
      sealed: { fragment: inputs['fragment secret'], secret_hash: made.secret_hash, ciphertext: made['public ciphertext'] },
      targeted: made['targeted ciphertext'],
      damaged: 'this link is damaged: its secret does not match the tip',
      // Without a nonce NIP-44 draws one: a second seal differs and still opens.
      fresh: r.fresh,
      openedPublic: opened,
      openedTargeted: opened,
      openedFresh: opened,
    });
    expect(r.fresh).to.be.a('string').and.not.equal(made['public ciphertext']);
  });

  it('the printed create request matches the printed values', () => {
    expect(createBody).to.deep.equal({
      asset: 'ltc',
      amount: '50000',
      tip_address: made.tip_address,
      secret_hash: made.secret_hash,
      ciphertext: made['public ciphertext'],
      draft: true,
    });
  });
});

eachDialect('docs/tips.md: the worked example through the server', (dialect) => {
  const w = useTipsWorld(dialect, useChainFakes());

  it('stores the printed request, and a claim hands back exactly the ciphertext that opens to the tip key', async () => {
    const created = await w.t.client.post('/api/v1/tips/social', createBody, { token: w.sender.token });
    expect([created.status, created.body.status], created.text).to.deep.equal([200, 'draft']);
    const id = created.body.tip_id as string;
    const funding = createHash('sha256').update('funding').digest('hex');
    expect((await w.t.client.post(`/api/v1/tips/social/${id}/attach-funding`, { funding_txid: funding }, { token: w.sender.token })).status).to.equal(200);
    // Stands in for the funding worker (tested in test/tips and test/real): the tip is now funded.
    await w.t.backend.db.knex('social_tips').where({ id }).update({ status: 'pending' });
    const claim = await w.t.client.post(`/api/v1/tips/social/${id}/claim`, undefined, { token: w.other.token });
    expect(claim.body).to.include({ status: 'claiming', tip_address: made.tip_address, ciphertext: made['public ciphertext'], secret_hash: made.secret_hash });
    const conversationKey = createHmac('sha256', 'wallet-backend-tip-v1').update(hex(inputs['fragment secret']!)).digest();
    expect(JSON.parse(nip44Decrypt(claim.body.ciphertext as string, conversationKey).plaintext)).to.deep.equal({ v: 1, asset: 'ltc', key: inputs['tip key (ltc private key)'] });
  });
});
