import { expect } from 'chai';
import { InviteStore, type Knex } from '@wallet/backend-core';
import { InviteAdmin } from '../../../packages/core/src/gates/index.js';
import { BtcKey, eachDialect, extensionBody, useTestBackend } from '../../harness/index.js';

eachDialect('gates: invite codes', (dialect) => {
  const t = useTestBackend(dialect, { settings: { registrationRequireInvite: true } });
  const register = (fields: Record<string, unknown> = {}, btc = new BtcKey()) => t.client.post('/api/v1/auth/extension', extensionBody(btc, t.clock.now(), fields));
  const invites = () => new InviteStore(t.backend.db, t.clock);

  it('mints 128-bit base58 codes and stores only their sha256', async () => {
    const codes = await invites().mint(3, { label: 'friends' });
    expect(codes).to.have.length(3);
    for (const code of codes) expect(code).to.match(/^[1-9A-HJ-NP-Za-km-z]{21,22}$/);
    const rows = await t.backend.db.knex('invite_codes').select('*');
    expect(rows).to.have.length(3);
    expect(JSON.stringify(rows)).to.not.include(codes[0]);
    expect(rows.every((row) => row.label === 'friends' && /^[0-9a-f]{64}$/.test(row.code_hash))).to.equal(true);
  });

  it('a mint whose audit entry cannot be written stores no code: the codes and their entry are one transaction', async () => {
    let seenInTransaction: number | null = null;
    const failingAudit = {
      // The codes are in the transaction when the entry is appended: its failure must take them with it.
      async append(trx: Knex.Transaction): Promise<never> {
        seenInTransaction = Number(((await trx('invite_codes').count({ n: '*' }).first()) as { n: number | string }).n);
        throw new Error('the audit chain cannot be written');
      },
    };
    const admin = new InviteAdmin(t.backend.db, t.clock, invites(), failingAudit);
    let refused: unknown = null;
    await admin.mint({ kind: 'cli' }, { count: 3, label: 'lost' }).catch((err: unknown) => (refused = err));
    expect((refused as Error | null)?.message).to.equal('the audit chain cannot be written');
    expect(seenInTransaction, 'the codes were written in the transaction before the entry').to.equal(3);
    expect(await t.backend.db.knex('invite_codes').count({ n: '*' }).first()).to.satisfy((row: { n: number | string }) => Number(row.n) === 0);
    // The same mint with the chain writable stores its codes.
    expect((await t.backend.setup.mintInvites(3, { label: 'kept' })).map((invite) => invite.code)).to.have.length(3);
    expect(await t.backend.db.knex('invite_codes').pluck('label')).to.deep.equal(['kept', 'kept', 'kept']);
  });

  it('a code admits one new wallet; unknown, used and expired codes get one literal error', async () => {
    const [code, expiring] = await invites().mint(2);
    const [soon] = await invites().mint(1, { expiresAt: new Date(t.clock.now().getTime() + 60_000) });
    expect((await register({ invite_code: code })).status).to.equal(200);
    const messages = new Set<string>();
    for (const attempt of [{ invite_code: code }, { invite_code: 'unknownCode1111111111' }, {}]) {
      const res = await register(attempt);
      expect(res.status).to.equal(400);
      expect(res.body.error.code).to.equal('invite_invalid');
      messages.add(res.body.error.message);
    }
    t.clock.advance(61_000);
    const expired = await register({ invite_code: soon });
    expect(expired.body.error.code).to.equal('invite_invalid');
    messages.add(expired.body.error.message);
    expect([...messages]).to.deep.equal(['Invalid invite code']);
    expect((await register({ invite_code: expiring })).status).to.equal(200);
  });

  it('eight new wallets racing for one code: exactly one registers', async () => {
    const [code] = await invites().mint(1);
    const results = await Promise.all(Array.from({ length: 8 }, () => register({ invite_code: code })));
    expect(results.filter((r) => r.status === 200)).to.have.length(1);
    expect(results.filter((r) => r.status === 400 && r.body.error.code === 'invite_invalid')).to.have.length(7);
    const [row] = await t.backend.db.knex('users').count({ n: '*' });
    expect(Number((row as { n: unknown }).n)).to.equal(1);
  });

  it('a returning wallet needs no code', async () => {
    const [code] = await invites().mint(1);
    const btc = new BtcKey();
    expect((await register({ invite_code: code }, btc)).status).to.equal(200);
    t.clock.advance(1000);
    expect((await register({}, btc)).status).to.equal(200);
  });
});
