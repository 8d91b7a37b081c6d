import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { armorSlatepack, isWellFormedSlatepack, MAX_SLATEPACK_BYTES } from '@wallet/grin-relay';

const REAL = JSON.parse(readFileSync(new URL('../fixtures/grin-slatepacks.json', import.meta.url), 'utf8')) as { owner_rpc: string; user_s1: string };
const bytes = (n: number) => Uint8Array.from({ length: n }, (_, i) => (i * 131 + 7) % 256);

describe('grin-relay: slatepack armor', () => {
  it('accepts armors grin-wallet wrote', () => {
    expect(isWellFormedSlatepack(REAL.owner_rpc)).to.equal(true);
    expect(isWellFormedSlatepack(REAL.user_s1)).to.equal(true);
  });

  it('accepts what it armors, leading zero bytes included, and the quoting grin-wallet tolerates', () => {
    for (const payload of [bytes(1), bytes(300), Uint8Array.from([0, 0, 5, 6, 7])]) expect(isWellFormedSlatepack(armorSlatepack(payload))).to.equal(true);
    const quoted = REAL.user_s1.replace(/ /g, '\r\n> ');
    expect(isWellFormedSlatepack(`> ${quoted}\r\n`)).to.equal(true);
  });

  it('checks a payload near the 64 KiB bound quickly, and refuses one past it', () => {
    const near = armorSlatepack(bytes(44_000));
    expect(Buffer.byteLength(near)).to.be.within(60_000, MAX_SLATEPACK_BYTES);
    const started = performance.now();
    expect(isWellFormedSlatepack(near)).to.equal(true);
    expect(performance.now() - started).to.be.lessThan(250);
    expect(isWellFormedSlatepack(armorSlatepack(bytes(48_000)))).to.equal(false);
  });

  it('refuses corrupted payloads, broken framing and anything around the armor', () => {
    const good = REAL.owner_rpc;
    const refusals = {
      'one changed character': good.replace('8GQrdcwdLKJD28F', '8GQrdcwdLKJD28G'),
      'a character outside base58': good.replace('8GQ', '0GQ'),
      'no header': good.replace('BEGINSLATEPACK', 'BEGINSLATE'),
      'no footer': good.replace('ENDSLATEPACK.', ''),
      'an extra period': good.replace('3a9siP7ZhZgAh7w', '3a9siP7.hZgAh7w'),
      'text after the footer': `${good}thanks!`,
      'text before the header': `hi ${good}`,
      'an empty payload': 'BEGINSLATEPACK. . ENDSLATEPACK.',
      'only a checksum': armorSlatepack(new Uint8Array(0)),
      'not an armor': 'hello',
    };
    for (const [what, text] of Object.entries(refusals)) expect(isWellFormedSlatepack(text), what).to.equal(false);
  });
});
