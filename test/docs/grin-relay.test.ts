import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { armorSlatepack, grinRelayPlugin, isWellFormedSlatepack, MAX_SLATEPACK_BYTES } from '@wallet/grin-relay';
import { grinRelayErrors } from '../../packages/grin-relay/src/errors.js';
import { RELAY_STATUS } from '../../packages/grin-relay/src/entry.js';
import { eachDialect, seedSession, useTestBackend } from '../harness/index.js';
import { fencedBlock, integrationDoc } from './doc-snippets.js';

/** docs/wallet-integration.md § 8 against @wallet/grin-relay: the armor rule, the wire shapes, the codes. */
const section = integrationDoc.slice(integrationDoc.indexOf('## 8. Grin relay'));
const ARMOR = fencedBlock('BEGINSLATEPACK. HtWBf4dwt5cBfhc').trimEnd();
const EXAMPLE_TEXT = 'an opaque slatepack';
const ENTRY_EXAMPLE = JSON.parse(fencedBlock('"amount_nanogrin": "1500000000"', 'json')) as Record<string, unknown>;

describe('docs/wallet-integration.md: Grin relay armor rule', () => {
  it('the worked armor is what grin-wallet\'s armoring of the example bytes gives, and the server accepts it', () => {
    const bytes = utf8ToBytes(EXAMPLE_TEXT);
    expect(section).to.include(bytesToHex(bytes));
    expect(section).to.include(`checksum \`${bytesToHex(sha256(sha256(bytes)).subarray(0, 4))}\``);
    expect(`${ARMOR}\n`).to.equal(armorSlatepack(bytes));
    expect(isWellFormedSlatepack(ARMOR)).to.equal(true);
    expect(isWellFormedSlatepack(`${ARMOR}\n`)).to.equal(true);
  });

  it('each numbered rule is one the server enforces', () => {
    expect(section).to.include(`at most **${MAX_SLATEPACK_BYTES.toLocaleString('en').replace(',', ' ')} bytes**`);
    const refused = {
      'rule 1: over 64 KiB': armorSlatepack(new Uint8Array(48_000).fill(7)),
      'rule 2: a fourth period': ARMOR.replace('. ENDSLATEPACK.', '. ENDSLATEPACK..'),
      'rule 3: lower-case header': ARMOR.replace('BEGINSLATEPACK', 'beginslatepack'),
      'rule 3: text around the footer': ARMOR.replace(' ENDSLATEPACK', ' END ENDSLATEPACK'),
      'rule 3: text after the last period': `${ARMOR} thanks`,
      'rule 4: a character outside base58': ARMOR.replace('HtWB', 'HtW0'),
      'rule 4: only a checksum': armorSlatepack(new Uint8Array(0)),
      'rule 5: a wrong checksum': armorSlatepack(utf8ToBytes(EXAMPLE_TEXT)).replace(/^BEGINSLATEPACK\. (\S+)/, (_, word: string) => `BEGINSLATEPACK. ${word.slice(0, -1)}${word.endsWith('c') ? 'd' : 'c'}`),
    };
    for (const [rule, text] of Object.entries(refused)) expect(isWellFormedSlatepack(text), rule).to.equal(false);
    const framed = {
      'mail quoting and CRLF': `> ${ARMOR.replace(/ /g, '\r\n> ')}\r\n`,
      'tabs and no spaces': ARMOR.replace(/ /g, '\t'),
      'the payload in one word': ARMOR.replace('HtWBf4dwt5cBfhc hdjcnpNhnTCKrpU A', 'HtWBf4dwt5cBfhchdjcnpNhnTCKrpUA'),
    };
    for (const [what, text] of Object.entries(framed)) expect(isWellFormedSlatepack(text), what).to.equal(true);
  });

  it('the error table and the status values are the plugin\'s', () => {
    for (const [code, { status }] of Object.entries(grinRelayErrors.specs)) expect(section, code).to.match(new RegExp(`\\| \`${code}\` \\| ${status} \\|`));
    const documented = [...section.matchAll(/^\| `(relay_[a-z_]+)` \|/gm)].map(([, code]) => code);
    expect(documented.sort()).to.deep.equal(Object.keys(grinRelayErrors.specs).sort());
    for (const status of Object.values(RELAY_STATUS)) expect(section).to.include(`\`${status}\``);
  });
});

eachDialect('docs/wallet-integration.md: Grin relay on the wire', (dialect) => {
  const t = useTestBackend(dialect, { plugins: [grinRelayPlugin()] });
  const party = async () => {
    const { userId, auth } = await seedSession(t.backend);
    return { id: userId, token: auth.access_token };
  };
  const call = (who: { token: string }, step: string, body: unknown) => t.client.post(`/api/v1/wallet/grin/relay/${step}`, body, { token: who.token });
  const expectError = (res: { status: number; body: any }, status: number, code: string) => {
    expect(res.status, JSON.stringify(res.body)).to.equal(status);
    expect(res.body.error.code).to.equal(code);
  };

  it('walks the documented exchange with the documented shapes, statuses and codes', async () => {
    const [sender, recipient, stranger] = [await party(), await party(), await party()];
    const slateId = randomUUID();
    const caps = (await t.client.get('/api/v1/capabilities')).body;
    expect(caps.grin_relay).to.deep.equal({ enabled: true, expiry_hours: 168, max_slatepack_bytes: MAX_SLATEPACK_BYTES });

    const broken = ARMOR.replace('HtWBf4dwt5cBfhc', 'HtWBf4dwt5cBfhd');
    const refused = await call(sender, 'create', { recipient_user_id: recipient.id, slate_id: slateId, slatepack: broken, amount_nanogrin: '1500000000' });
    expectError(refused, 400, 'invalid_request');
    expect(refused.body.error.details.map((d: { path: string }) => d.path)).to.deep.equal(['body.slatepack']);
    expectError(await call(sender, 'create', { recipient_user_id: recipient.id, slate_id: slateId, slatepack: ARMOR, amount_nanogrin: '01500000000' }), 400, 'invalid_request');
    expectError(await call(sender, 'create', { recipient_user_id: recipient.id, slate_id: slateId, slatepack: ARMOR, amount_nanogrin: 1, memo: 'x' }), 400, 'invalid_request');
    expectError(await call(sender, 'create', { recipient_user_id: sender.id, slate_id: slateId, slatepack: ARMOR, amount_nanogrin: 1 }), 400, 'relay_recipient_self');

    const created = await call(sender, 'create', { recipient_user_id: recipient.id.toUpperCase(), slate_id: slateId.toUpperCase(), slatepack: ARMOR, amount_nanogrin: 1_500_000_000 });
    expect(created.status, JSON.stringify(created.body)).to.equal(200);
    expect(Object.keys(created.body).sort()).to.deep.equal(Object.keys(ENTRY_EXAMPLE).sort());
    expect(created.body).to.deep.include({ slate_id: slateId, recipient_user_id: recipient.id, amount_nanogrin: '1500000000', status: 'pending_recipient', slatepack: ARMOR, response_slatepack: null, tx_hash: null });
    expect(new Date(created.body.expires_at).getTime() - new Date(created.body.created_at).getTime()).to.equal(168 * 3_600_000);
    expect(created.body.created_at).to.equal(new Date(created.body.created_at).toISOString());
    expectError(await call(sender, 'create', { recipient_user_id: recipient.id, slate_id: slateId, slatepack: ARMOR, amount_nanogrin: '18446744073709551615' }), 409, 'relay_slate_exists');

    const pending = await t.client.get('/api/v1/wallet/grin/relay/pending', { token: recipient.token });
    expect(pending.body).to.deep.equal({ relays: [created.body] });
    expect((await t.client.get('/api/v1/wallet/grin/relay/pending', { token: sender.token })).body).to.deep.equal({ relays: [] });

    expectError(await call(stranger, 'get', { slate_id: slateId }), 404, 'relay_not_found');
    expectError(await call(stranger, 'get', { slate_id: randomUUID() }), 404, 'relay_not_found');
    expectError(await call(sender, 'respond', { slate_id: slateId, response_slatepack: ARMOR }), 409, 'relay_wrong_party');
    expectError(await call(recipient, 'finalize', { slate_id: slateId, tx_hash: 'ab'.repeat(32) }), 409, 'relay_wrong_party');
    expectError(await call(sender, 'finalize', { slate_id: slateId, tx_hash: 'ab'.repeat(32) }), 409, 'relay_not_awaiting_finalization');

    const responded = await call(recipient, 'respond', { slate_id: slateId, response_slatepack: `${ARMOR}\n` });
    expect(responded.body).to.include({ status: 'pending_sender', response_slatepack: `${ARMOR}\n`, expires_at: created.body.expires_at });
    expectError(await call(recipient, 'respond', { slate_id: slateId, response_slatepack: ARMOR }), 409, 'relay_not_awaiting_response');
    const finalized = await call(sender, 'finalize', { slate_id: slateId.toUpperCase(), tx_hash: 'AB'.repeat(32) });
    expect(finalized.body).to.include({ status: 'finalized', tx_hash: 'ab'.repeat(32) });
    expectError(await call(recipient, 'cancel', { slate_id: slateId }), 409, 'relay_finalized');
  });

  it('expiry: respond is refused at expires_at, before the sweep, and the entry can still be cancelled', async () => {
    const [sender, recipient] = [await party(), await party()];
    const slateId = randomUUID();
    expect((await call(sender, 'create', { recipient_user_id: recipient.id, slate_id: slateId, slatepack: ARMOR, amount_nanogrin: '1' })).status).to.equal(200);
    t.clock.advance(168 * 3_600_000);
    // Sessions do not outlive a week: sign the parties in again at the new time.
    for (const who of [sender, recipient]) who.token = (await t.backend.sessions.start(who.id, 'extension')).access_token;
    expect((await t.client.get('/api/v1/wallet/grin/relay/pending', { token: recipient.token })).body).to.deep.equal({ relays: [] });
    expectError(await call(recipient, 'respond', { slate_id: slateId, response_slatepack: ARMOR }), 409, 'relay_expired');
    expect((await call(recipient, 'get', { slate_id: slateId })).body.status).to.equal('pending_recipient');
    expect((await call(sender, 'cancel', { slate_id: slateId })).body.status).to.equal('cancelled');
    expect((await call(recipient, 'cancel', { slate_id: slateId })).body.status).to.equal('cancelled');
  });
});
