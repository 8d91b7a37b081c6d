import { expect } from 'chai';
import {
  BtcKey,
  eachDialect,
  extensionBody,
  provenKeyBody,
  signingKeysOfEveryAsset,
  useTestBackend,
  type SigningKey,
  type TestBackend,
} from '../../harness/index.js';

/**
 * Website login refusals (issue 13 items 1 and 9): each test here fails on a mutant the rest of
 * the suite lets through — the signature check removed, the expiry compared with `<`, the
 * format checks unanchored or run after the challenge is burned, a BTC login resolved through
 * somebody's key list instead of the identity.
 */

const ORIGIN = 'https://shop.example';

/** Every kind of key a website login accepts. */
const KINDS = ['btc', 'btc uncompressed', 'ltc', 'ltc uncompressed', 'xmr', 'wow', 'grin key', 'grin slatepack address'] as const;
type Kind = (typeof KINDS)[number];

/** Index of each non-BTC kind in `signingKeysOfEveryAsset()`. */
const EVERY_ASSET_INDEX: Record<Exclude<Kind, 'btc' | 'btc uncompressed'>, number> = {
  ltc: 0,
  'ltc uncompressed': 1,
  xmr: 2,
  wow: 3,
  'grin key': 4,
  'grin slatepack address': 5,
};

function btcSigningKey(btc: BtcKey, uncompressed: boolean): SigningKey {
  return uncompressed
    ? { asset: 'btc', publicKey: btc.uncompressedHex, sign: (m) => btc.signMessage(m, 'btc', { uncompressed: true }) }
    : { asset: 'btc', publicKey: btc.publicKeyHex, sign: (m) => btc.signMessage(m) };
}

/** Two fresh keys of one kind: the one that will log in, and another of the same format. */
function keysOf(kind: Kind): { key: SigningKey; btc?: BtcKey; other: SigningKey } {
  if (kind === 'btc' || kind === 'btc uncompressed') {
    const btc = new BtcKey();
    return { key: btcSigningKey(btc, kind === 'btc uncompressed'), btc, other: btcSigningKey(new BtcKey(), kind === 'btc uncompressed') };
  }
  const index = EVERY_ASSET_INDEX[kind];
  return { key: signingKeysOfEveryAsset()[index]!, other: signingKeysOfEveryAsset()[index]! };
}

/** A wallet that can log in with a key of `kind`: BTC as its identity, any other asset PROVEN through POST /keys. */
async function walletFor(t: TestBackend, kind: Kind): Promise<{ key: SigningKey; other: SigningKey; userId: string }> {
  const { key, btc, other } = keysOf(kind);
  const res = await t.client.post('/api/v1/auth/extension', extensionBody(btc ?? new BtcKey(), t.clock.now()));
  expect(res.status).to.equal(200);
  if (btc === undefined) {
    const proven = await t.client.post('/api/v1/keys', provenKeyBody(key, res.body.user_id), { token: res.body.access_token });
    expect(proven.status, kind).to.equal(200);
    expect(proven.body.proven, kind).to.equal(true);
  }
  return { key, other, userId: res.body.user_id };
}

async function challenge(t: TestBackend, origin = ORIGIN): Promise<{ challenge: string; challenge_id: string; expires_at: string }> {
  const res = await t.client.post('/api/v1/auth/website/challenge', { origin });
  expect(res.status, origin).to.equal(200);
  return res.body;
}

type Reply = { status: number; body: any };

function expectLiteral(res: Reply, status: number, message: string, label = ''): void {
  expect(res.status, `${label} ${JSON.stringify(res.body)}`).to.equal(status);
  expect(res.body.error.message, label).to.equal(message);
}

async function webSessions(t: TestBackend, userId: string): Promise<number> {
  const [row] = await t.backend.db.knex('sessions').where({ user_id: userId, platform: 'web' }).count({ n: '*' });
  return Number((row as { n: unknown }).n);
}

/** One character of the field's own alphabet where that makes a wrong value, else one just outside it. */
function junkFor(kind: Kind): { key: string; signature: string } {
  if (kind === 'xmr' || kind === 'wow') return { key: '0', signature: '1' };
  if (kind === 'grin slatepack address') return { key: 'q', signature: '0' };
  if (kind === 'grin key') return { key: '0', signature: '0' };
  return { key: '0', signature: 'A' };
}

/**
 * Junk before, junk after, a newline at the end, a space before, a wrong length. Cryptonote
 * addresses come in several lengths (standard, subaddress, integrated; Monero and Wownero), so
 * their format is 95–110 base58 characters: 94 and 111 are the wrong lengths.
 */
function malformed(kind: Kind, value: string, junk: string): string[] {
  const wrongLength = value.startsWith('SigV') || !(kind === 'xmr' || kind === 'wow') ? [value.slice(0, -1)] : [value.slice(0, 94), value.padEnd(111, '1')];
  return [`${junk}${value}`, `${value}${junk}`, `${value}\n`, ` ${value}`, ...wrongLength];
}

eachDialect('identity: website login refusals', (dialect) => {
  const t = useTestBackend(dialect);
  const verify = (body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Reply> =>
    t.client.post('/api/v1/auth/website/verify', body, { headers });

  describe('a signature made by another key of the right format is 401 Invalid signature (item 1)', () => {
    for (const kind of KINDS) {
      it(kind, async () => {
        const { key, other, userId } = await walletFor(t, kind);
        const issued = await challenge(t);
        const forged = await verify({ challenge_id: issued.challenge_id, asset: key.asset, public_key: key.publicKey, signature: other.sign(issued.challenge) });
        expectLiteral(forged, 401, 'Invalid signature', kind);

        // The key's own signature, but over another challenge's text: it does not answer this one.
        const first = await challenge(t);
        const second = await challenge(t);
        const replayed = await verify({ challenge_id: first.challenge_id, asset: key.asset, public_key: key.publicKey, signature: key.sign(second.challenge) });
        expectLiteral(replayed, 401, 'Invalid signature', kind);
        expect(await webSessions(t, userId), kind).to.equal(0);

        // The same key, signing the right text, does log in: the refusals above were the signature's.
        const good = await challenge(t);
        const res = await verify({ challenge_id: good.challenge_id, asset: key.asset, public_key: key.publicKey, signature: key.sign(good.challenge) });
        expect(res.status, kind).to.equal(200);
        expect(res.body.user_id, kind).to.equal(userId);
      });
    }
  });

  describe('a key or signature in the wrong format is 400 and leaves the challenge usable (item 9)', () => {
    for (const kind of KINDS) {
      it(kind, async () => {
        const { key } = await walletFor(t, kind);
        const issued = await challenge(t);
        const good = { challenge_id: issued.challenge_id, asset: key.asset, public_key: key.publicKey, signature: key.sign(issued.challenge) };
        const junk = junkFor(kind);
        for (const public_key of malformed(kind, key.publicKey, junk.key)) {
          expectLiteral(await verify({ ...good, public_key }), 400, 'Invalid signature format', `${kind} key ${JSON.stringify(public_key)}`);
        }
        for (const signature of malformed(kind, good.signature, junk.signature)) {
          expectLiteral(await verify({ ...good, signature }), 400, 'Invalid signature format', `${kind} signature ${JSON.stringify(signature)}`);
        }
        // Nothing above touched the challenge: the very same one still logs in.
        expect((await verify(good)).status, kind).to.equal(200);
      });
    }
  });

  it('a signature that recovers or verifies to no key is 401 Invalid signature, never 500', async () => {
    const zeros = (header: number) => Buffer.concat([Buffer.from([header]), Buffer.alloc(64)]).toString('base64');
    const ones = (header: number) => Buffer.concat([Buffer.from([header]), Buffer.alloc(64, 0xff)]).toString('base64');
    const btc = await walletFor(t, 'btc');
    const legacy = await walletFor(t, 'btc uncompressed');
    const ltc = await walletFor(t, 'ltc');
    const xmr = await walletFor(t, 'xmr');
    const grin = await walletFor(t, 'grin key');
    const slatepack = await walletFor(t, 'grin slatepack address');
    const cases: Array<[string, string, string]> = [
      ['btc', btc.key.publicKey, zeros(31)], // r = s = 0: no point recovers
      ['btc', btc.key.publicKey, ones(32)], // r, s ≥ n
      ['btc', legacy.key.publicKey, zeros(27)],
      ['btc', `02${'ff'.repeat(32)}`, btc.key.sign('x')], // the key itself is no curve point (x ≥ p)
      ['ltc', ltc.key.publicKey, zeros(34)],
      ['xmr', xmr.key.publicKey, `SigV2${'1'.repeat(88)}`], // c = r = 0
      ['xmr', xmr.key.publicKey, `SigV1${'z'.repeat(88)}`],
      ['grin', grin.key.publicKey, '0'.repeat(128)],
      ['grin', grin.key.publicKey, 'f'.repeat(128)], // R not a point, s ≥ L
      ['grin', 'f'.repeat(64), grin.key.sign('x')], // no point
      ['grin', slatepack.key.publicKey, '0'.repeat(128)],
    ];
    for (const [asset, public_key, signature] of cases) {
      const issued = await challenge(t);
      expectLiteral(await verify({ challenge_id: issued.challenge_id, asset, public_key, signature }), 401, 'Invalid signature', `${asset} ${public_key.slice(0, 10)} ${signature.slice(0, 12)}`);
    }
  });

  it('an http://localhost:PORT origin gets a challenge and logs in; a default port is not how browsers name it', async () => {
    const { key, userId } = await walletFor(t, 'btc');
    for (const origin of ['http://localhost:5173', 'http://127.0.0.1:8080', 'http://localhost']) {
      const issued = await challenge(t, origin);
      expect(issued.challenge.startsWith(`${origin} asks you to sign in with your wallet.\n`), origin).to.equal(true);
      const res = await verify({ challenge_id: issued.challenge_id, asset: 'btc', public_key: key.publicKey, signature: key.sign(issued.challenge) }, { origin });
      expect(res.status, origin).to.equal(200);
      expect(res.body.user_id, origin).to.equal(userId);
    }
    // A browser never sends the scheme's default port, so such an origin could never match.
    for (const origin of ['http://localhost:80', 'https://localhost:443', 'http://localhost:5173/']) {
      expectLiteral(await t.client.post('/api/v1/auth/website/challenge', { origin }), 400, 'Invalid origin', origin);
    }
  });

  it('a challenge is refused at the exact instant it expires and accepted 1 ms before', async () => {
    const { key, userId } = await walletFor(t, 'grin key');
    const late = await challenge(t);
    expect(new Date(late.expires_at).getTime() - t.clock.now().getTime()).to.equal(300_000);
    t.clock.set(late.expires_at);
    const refused = await verify({ challenge_id: late.challenge_id, asset: key.asset, public_key: key.publicKey, signature: key.sign(late.challenge) });
    expectLiteral(refused, 401, 'Invalid or expired challenge');

    const onTime = await challenge(t);
    t.clock.set(new Date(new Date(onTime.expires_at).getTime() - 1));
    const res = await verify({ challenge_id: onTime.challenge_id, asset: key.asset, public_key: key.publicKey, signature: key.sign(onTime.challenge) });
    expect(res.status).to.equal(200);
    expect(res.body.user_id).to.equal(userId);
  });

  it('a BTC login resolves through the identity, whoever else lists that key unproven', async () => {
    const btc = new BtcKey();
    const compressed = btcSigningKey(btc, false);
    const uncompressed = btcSigningKey(btc, true);
    const login = async (key: SigningKey): Promise<Reply> => {
      const issued = await challenge(t);
      return verify({ challenge_id: issued.challenge_id, asset: 'btc', public_key: key.publicKey, signature: key.sign(issued.challenge) });
    };
    // Listed by an account before anybody holds it as an identity: it resolves nobody.
    const early = (await t.client.post('/api/v1/auth/extension', extensionBody(new BtcKey(), t.clock.now()))).body;
    const listed = await t.client.post('/api/v1/keys', { asset: 'btc', public_key: btc.publicKeyHex }, { token: early.access_token });
    expect(listed.status).to.equal(200);
    expect(listed.body.proven).to.equal(false);
    expectLiteral(await login(compressed), 401, 'Unknown wallet');

    // The holder's identity wins, in either encoding, also over a listing made after it.
    const holder = (await t.client.post('/api/v1/auth/extension', extensionBody(btc, t.clock.now()))).body;
    expect(holder.user_id).to.not.equal(early.user_id);
    const late = (await t.client.post('/api/v1/auth/extension', extensionBody(new BtcKey(), t.clock.now()))).body;
    expect((await t.client.post('/api/v1/keys', { asset: 'btc', public_key: btc.uncompressedHex }, { token: late.access_token })).body.proven).to.equal(false);
    for (const key of [compressed, uncompressed]) {
      const res = await login(key);
      expect(res.status, key.publicKey).to.equal(200);
      expect(res.body.user_id, key.publicKey).to.equal(holder.user_id);
    }
  });
});
