import { expect } from 'chai';
import { ed25519 } from '@noble/curves/ed25519.js';
import { bech32 } from '@scure/base';
import { BtcKey, eachDialect, extensionBody, GrinKey, NostrKey, useTestBackend, type TestBackend, type TestResponse } from '../../harness/index.js';

type Key = { asset: string; public_key: string };

const btcEntry = (key: BtcKey): Key => ({ asset: 'btc', public_key: key.publicKeyHex });
const grinEntry = (key: GrinKey): Key => ({ asset: 'grin', public_key: key.publicKeyHex });
/** The same Grin key as a mainnet slatepack address (bech32 `grin1…` of the ed25519 key). */
const grinAddress = (key: GrinKey): Key => ({ asset: 'grin', public_key: bech32.encode('grin', bech32.toWords(ed25519.getPublicKey(key.secret))) });

async function count(t: TestBackend, table: string): Promise<number> {
  const [row] = await t.backend.db.knex(table).count({ n: '*' });
  return Number((row as { n: unknown }).n);
}

function expectDuplicate(res: TestResponse, index: number, first: number): void {
  expect(res.status, res.text).to.equal(400);
  expect(res.body.error.code).to.equal('duplicate_key');
  expect(res.body.error.details).to.deep.equal([{ path: `body.keys.${index}`, message: res.body.error.details[0].message }]);
  expect(res.body.error.details[0].message).to.include(`body.keys.${first}`);
}

eachDialect('identity: the keys list of a registration (order, duplicates)', (dialect) => {
  const t = useTestBackend(dialect);
  const extension = (btc: BtcKey, keys: Key[]) => t.client.post('/api/v1/auth/extension', extensionBody(btc, t.clock.now(), { keys }));

  async function storedKeys(userId: string): Promise<string[]> {
    const rows = await t.backend.db.knex('user_keys').where({ user_id: userId }).select('asset', 'key_type', 'public_key');
    return rows.map((row: { asset: string; key_type: string; public_key: string }) => `${row.asset} ${row.key_type} ${row.public_key}`).sort();
  }

  it('the order of the keys does not matter: [signing, grin] and [grin, signing] store the same keys', async () => {
    for (const order of ['signing first', 'signing last']) {
      const btc = new BtcKey();
      const grin = new GrinKey();
      const keys = order === 'signing first' ? [btcEntry(btc), grinEntry(grin)] : [grinEntry(grin), btcEntry(btc)];
      const res = await extension(btc, keys);
      expect(res.status, `${order}: ${res.text}`).to.equal(200);
      expect(await storedKeys(res.body.user_id)).to.deep.equal([`btc primary ${btc.publicKeyHex}`, `grin primary ${grin.publicKeyHex}`]);
    }
  });

  it('two BTC keys are duplicate_key in either order (before: [signing, other] passed, [other, signing] was key_mismatch)', async () => {
    const btc = new BtcKey();
    const other = new BtcKey();
    expectDuplicate(await extension(btc, [btcEntry(btc), btcEntry(other)]), 1, 0);
    expectDuplicate(await extension(btc, [btcEntry(other), btcEntry(btc)]), 1, 0);
    expectDuplicate(await extension(btc, [btcEntry(btc), btcEntry(btc)]), 1, 0);
    // The same key in another spelling is one key after normalisation.
    expectDuplicate(await extension(btc, [btcEntry(btc), { asset: 'btc', public_key: btc.publicKeyHex.toUpperCase() }]), 1, 0);
    expect(await count(t, 'users')).to.equal(0);
    expect(await count(t, 'user_keys')).to.equal(0);
    expect(await count(t, 'spent_proofs')).to.equal(0);
    // The refused attempts spent nothing: the same proof still registers.
    expect((await extension(btc, [btcEntry(btc)])).status).to.equal(200);
  });

  it('two entries for one Grin key type are duplicate_key (case-insensitively); a hex key and an address are not', async () => {
    const btc = new BtcKey();
    const grin = new GrinKey();
    const another = new GrinKey();
    expectDuplicate(await extension(btc, [grinEntry(grin), btcEntry(btc), grinEntry(another)]), 2, 0);
    expectDuplicate(await extension(btc, [grinEntry(grin), { asset: 'grin', public_key: grin.publicKeyHex.toUpperCase() }]), 1, 0);
    expectDuplicate(await extension(btc, [grinAddress(grin), grinAddress(another)]), 1, 0);
    expect(await count(t, 'users')).to.equal(0);
    // Routed by form into two key types: both are stored.
    const res = await extension(btc, [grinAddress(grin), grinEntry(grin)]);
    expect(res.status, res.text).to.equal(200);
    expect(await storedKeys(res.body.user_id)).to.deep.equal([
      `btc primary ${btc.publicKeyHex}`,
      `grin primary ${grin.publicKeyHex}`,
      `grin slatepack_address ${grinAddress(grin).public_key}`,
    ]);
  });

  it('Nostr register: the same duplicate rule, nothing created', async () => {
    const register = async (nostr: NostrKey, keys: Key[]) => {
      const nonce = (await t.client.get('/api/v1/auth/nostr/register-challenge')).body.nonce as string;
      const path = '/api/v1/auth/nostr/register';
      return t.client.post(path, { nostr_token: nostr.signedAction(path, nonce, 'nostr_register', t.clock.now()), nonce, seed_fingerprint: '0badc0de', keys });
    };
    const nostr = new NostrKey();
    const grin = new GrinKey();
    expectDuplicate(await register(nostr, [grinEntry(grin), btcEntry(new BtcKey()), grinEntry(new GrinKey())]), 2, 0);
    expectDuplicate(await register(nostr, [btcEntry(new BtcKey()), btcEntry(new BtcKey())]), 1, 0);
    expect(await count(t, 'users')).to.equal(0);
    const res = await register(nostr, [grinEntry(grin), grinAddress(grin)]);
    expect(res.status, res.text).to.equal(200);
  });
});
