import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { memoryNostrSigner } from '@wallet/client';
import { startServer, type RunningServer } from '@wallet/server';
import { eachDialect, freePort, freshDatabaseUrl, SECRETS_ENV } from '../harness/index.js';
import { fencedBlock, loadSnippet } from './doc-snippets.js';

/**
 * docs/wallet-integration.md "From nothing to a session": both blocks, as printed, against the
 * reference server on both dialects; each asset's path from nothing to a session under 30 lines.
 */
const first = fencedBlock('async function loginWithBtc', 'js');
const others = fencedBlock('async function proveThenLogIn', 'js');

interface Session {
  access_token: string;
  refresh_token: string;
  user_id: string;
  platform: string;
}
type FirstLogins = {
  loginWithBtc(service: string, btcKey: Uint8Array, seed: Uint8Array): Promise<Session>;
  loginWithNostr(service: string, nostr: unknown, seed: Uint8Array): Promise<Session>;
};
type OtherLogins = {
  loginWithLtc(service: string, session: Session, key: Uint8Array): Promise<Session>;
  loginWithCryptonote(service: string, session: Session, asset: 'xmr' | 'wow', spendKey: Uint8Array, viewKey: Uint8Array): Promise<Session>;
  loginWithGrin(service: string, session: Session, seed: Uint8Array): Promise<Session>;
};

/** Lines of code: neither blank nor a whole-line comment. */
const linesOf = (code: string) => code.split('\n').filter((line) => line.trim() !== '' && !line.trim().startsWith('//')).length;
/** The lines of `name`'s function in `code`, from its `async function` line to the closing brace. */
const functionLines = (code: string, name: string) => {
  const start = code.indexOf(`async function ${name}(`);
  return linesOf(code.slice(start, code.indexOf('\n}\n', start) + 2));
};
const imports = (code: string) => code.split('\n').filter((line) => line.startsWith('import ')).length;
/** A secret scalar below the ed25519 group order (its top byte zero), as a Monero wallet's keys are. */
const scalar = () => Uint8Array.from(randomBytes(32), (byte, i) => (i === 31 ? 0 : byte));

describe('docs: the client’s logins, each asset under 30 lines', () => {
  it('BTC and Nostr: imports and the function', () => {
    for (const name of ['loginWithBtc', 'loginWithNostr']) expect(imports(first) + functionLines(first, name), name).to.be.below(30);
  });
  it('LTC, XMR/WOW and Grin: imports, the shared helper and the function', () => {
    const shared = imports(others) + functionLines(others, 'proveThenLogIn');
    for (const name of ['loginWithLtc', 'loginWithCryptonote', 'loginWithGrin']) expect(shared + functionLines(others, name), name).to.be.below(30);
  });
});

eachDialect('docs: the client’s logins, run as printed against the reference server', (dialect) => {
  let running: RunningServer;
  let service: string;
  let dataDir: string;
  before(async function () {
    this.timeout(60_000);
    dataDir = mkdtempSync(join(tmpdir(), 'wallet-client-docs-'));
    const port = await freePort();
    service = `http://127.0.0.1:${port}`;
    running = await startServer({ DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', PUBLIC_API_URL: service, DATABASE_URL: await freshDatabaseUrl(dialect), ...SECRETS_ENV }, { write: () => undefined });
  });
  after(async () => {
    await running?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /** The account a session's access token acts for, asked of the server. */
  const accountOf = async (session: Session) => ((await (await fetch(`${service}/api/v1/auth/me`, { headers: { authorization: `Bearer ${session.access_token}` } })).json()) as { id: string }).id;

  it('BTC and Nostr register and log in; LTC, XMR, WOW and Grin log a website in on the same account', async () => {
    const { loginWithBtc, loginWithNostr } = await loadSnippet<FirstLogins>(first, ['loginWithBtc', 'loginWithNostr']);
    const seed = randomBytes(64);
    const btcKey = randomBytes(32);
    const session = await loginWithBtc(service, btcKey, seed);
    expect(session.platform).to.equal('extension');
    expect(await accountOf(session)).to.equal(session.user_id);
    // A login's signed timestamp is accepted once: the next login signs the next second.
    await new Promise((resolve) => setTimeout(resolve, 1_050 - (Date.now() % 1_000)));
    expect((await loginWithBtc(service, btcKey, seed)).user_id, 'the same key logs in to the same account').to.equal(session.user_id);
    const nostr = await loginWithNostr(service, memoryNostrSigner(randomBytes(32)), randomBytes(64));
    expect(nostr.platform).to.equal('nostr');
    expect(nostr.user_id).to.not.equal(session.user_id);
    expect(await accountOf(nostr)).to.equal(nostr.user_id);

    const { loginWithLtc, loginWithCryptonote, loginWithGrin } = await loadSnippet<OtherLogins>(others, ['loginWithLtc', 'loginWithCryptonote', 'loginWithGrin']);
    const logins = [
      await loginWithLtc(service, session, randomBytes(32)),
      await loginWithCryptonote(service, session, 'xmr', scalar(), scalar()),
      await loginWithCryptonote(service, session, 'wow', scalar(), scalar()),
      await loginWithGrin(service, session, randomBytes(32)),
    ];
    for (const web of logins) {
      expect(web.platform).to.equal('web');
      expect(web.user_id).to.equal(session.user_id);
      expect(await accountOf(web)).to.equal(session.user_id);
    }
  });
});
