import { expect } from 'chai';
import { deriveKey } from 'altcha-lib/algorithms/sha';
import { BtcKey, eachDialect, extensionBody, useTestBackend } from '../harness/index.js';
import { fencedBlock, integrationDoc, loadSnippet } from './doc-snippets.js';

/**
 * docs/wallet-integration.md § 7: the ALTCHA snippets run exactly as printed (against the real
 * server, which must accept what they produce), and the worked example's bytes are what
 * altcha-lib derives.
 */
const LIB_SNIPPET = fencedBlock('async function altchaSolution', 'js');
const PLAIN_SNIPPET = fencedBlock('async function solveAltcha', 'js');
const NODE_IMPORT = "import { deriveKey } from 'altcha-lib/algorithms/sha';";
const WEB_IMPORT = "import { deriveKey } from 'altcha-lib/algorithms/web/sha';";

type LibSnippet = { altchaSolution: (apiBase: string) => Promise<string> };
type PlainSnippet = { solveAltcha: (challenge: unknown) => Promise<string> };

const EXAMPLE = { salt: '9edbdb6ab36a87577b146a4c435d0901', nonce: 'a8259484dff39986ac3298c827ad1b19', counter: 1234 };
const EXAMPLE_KEY = '9a6b1e65b23918523e7c4524361075127b54a4f42b657cffa6e314190374318b';

describe('docs/wallet-integration.md: ALTCHA', () => {
  it('the worked example is what altcha-lib derives, and the plain snippet finds its counter', async () => {
    const hex = (text: string) => Buffer.from(text, 'hex');
    const password = Buffer.concat([hex(EXAMPLE.nonce), hex('000004d2')]);
    const { derivedKey } = await deriveKey({ algorithm: 'SHA-256', cost: 1, keyLength: 32, nonce: EXAMPLE.nonce, salt: EXAMPLE.salt, keyPrefix: '00' }, hex(EXAMPLE.salt), password);
    expect(Buffer.from(derivedKey).toString('hex')).to.equal(EXAMPLE_KEY);
    for (const value of [EXAMPLE.salt, EXAMPLE.nonce, EXAMPLE_KEY, EXAMPLE_KEY.slice(0, 32), `${EXAMPLE.salt}${EXAMPLE.nonce}000004d2`]) expect(integrationDoc).to.include(value);

    const { solveAltcha } = await loadSnippet<PlainSnippet>(PLAIN_SNIPPET, ['solveAltcha']);
    const challenge = { parameters: { algorithm: 'SHA-256', cost: 1, keyLength: 32, keyPrefix: EXAMPLE_KEY.slice(0, 32), nonce: EXAMPLE.nonce, salt: EXAMPLE.salt } };
    const payload = JSON.parse(Buffer.from(await solveAltcha(challenge), 'base64').toString('utf8'));
    expect(payload).to.deep.equal({ challenge, solution: { counter: EXAMPLE.counter, derivedKey: EXAMPLE_KEY } });
  });

  it('the doc offers the WebCrypto import as a line the snippet can take instead', () => {
    expect(LIB_SNIPPET).to.include(NODE_IMPORT);
    expect(LIB_SNIPPET).to.include(`// In a browser or another WebCrypto runtime: ${WEB_IMPORT}`);
  });
});

eachDialect('docs/wallet-integration.md: ALTCHA snippets against the server', (dialect) => {
  const t = useTestBackend(dialect, { settings: { registrationRequirePow: true, powDifficulty: 2_000 } });
  const register = (altcha_solution: string) => t.client.post('/api/v1/auth/extension', extensionBody(new BtcKey(), t.clock.now(), { altcha_solution }));

  it('the altcha-lib snippet, as printed and with the WebCrypto deriveKey, registers a new wallet', async () => {
    for (const code of [LIB_SNIPPET, LIB_SNIPPET.replace(NODE_IMPORT, WEB_IMPORT)]) {
      const { altchaSolution } = await loadSnippet<LibSnippet>(code, ['altchaSolution']);
      const res = await register(await altchaSolution(t.client.baseUrl));
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
    }
  });

  it('the library-free snippet registers a new wallet', async () => {
    const { solveAltcha } = await loadSnippet<PlainSnippet>(PLAIN_SNIPPET, ['solveAltcha']);
    const challenge = (await t.client.post('/api/v1/auth/pow-challenge')).body;
    expect(challenge.parameters).to.include({ algorithm: 'SHA-256', cost: 1, keyLength: 32 });
    expect(challenge.parameters.keyPrefix).to.match(/^[0-9a-f]{32}$/);
    for (const field of ['salt', 'nonce']) expect(challenge.parameters[field]).to.match(/^[0-9a-f]{32}$/);
    expect(Object.keys(challenge.parameters).sort()).to.deep.equal(['algorithm', 'cost', 'data', 'keyLength', 'keyPrefix', 'keySignature', 'nonce', 'salt']);
    const res = await register(await solveAltcha(challenge));
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
  });
});
