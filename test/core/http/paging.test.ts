import { expect } from 'chai';
import * as v from 'valibot';
import { decodeCursor, encodeCursor, nextAfter, pageQuery } from '@wallet/backend-core';

/** The cursor of the convention, computed here: base64url of `<epoch ms>.<id>`. */
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
const ID = '00000000-0000-4000-8000-000000000001';
const AT = new Date('2026-01-01T00:00:00.123Z');

describe('http kit: admin list paging (one cursor codec)', () => {
  it('encodes a row as base64url of `<epoch ms>.<id>` and decodes it back', () => {
    expect(encodeCursor({ at: AT, id: ID })).to.equal(b64(`${AT.getTime()}.${ID}`));
    expect(decodeCursor(b64(`${AT.getTime()}.${ID}`))).to.deep.equal({ at: AT, id: ID });
    // Any printable-ASCII id (premium's invoice ids), a dot in it included; the epoch itself.
    expect(decodeCursor(b64('0.Inv.42:x'))).to.deep.equal({ at: new Date(0), id: 'Inv.42:x' });
    expect(decodeCursor(b64(`8640000000000000.${ID}`))).to.deep.equal({ at: new Date(8.64e15), id: ID });
  });

  it('refuses every other text (null from the codec, an invalid_request issue from the schema)', () => {
    const bad = [
      '',
      'x',
      `${AT.getTime()}.${ID}`, // the body in clear
      b64(`${AT.getTime()}`),
      b64(`${AT.getTime()}.`),
      b64(`.${ID}`),
      b64(`0${AT.getTime()}.${ID}`), // a leading zero
      b64(`-1.${ID}`),
      b64(`8640000000000001.${ID}`), // past the last valid Date
      b64(`${AT.getTime()}:${ID}`), // premium's old separator
      b64(`${AT.getTime()}.a\u0000b`),
      b64(`${AT.getTime()}.a b`),
      b64(`${AT.getTime()}.${'x'.repeat(129)}`),
      `${b64(`${AT.getTime()}.${ID}`)}=`, // padding: not the one spelling
      b64('1.ab').slice(0, -1) + 'h', // 'MS5hYh': stray bits that decode as 'MS5hYg' does
    ];
    const query = v.object(pageQuery);
    for (const text of bad) {
      expect(decodeCursor(text), JSON.stringify(text)).to.equal(null);
      expect(v.safeParse(query, { after: text }).success, JSON.stringify(text)).to.equal(false);
    }
    expect(v.parse(query, {})).to.deep.equal({ limit: 100 });
    expect(v.parse(query, { limit: '500', after: b64(`1.${ID}`) })).to.deep.equal({ limit: 500, after: { at: new Date(1), id: ID } });
    for (const limit of ['0', '501', '01', '-1', '1.5', '']) expect(v.safeParse(query, { limit }).success, limit).to.equal(false);
  });

  it('next_after: the cursor of row `limit` when the extra row came back, else null', () => {
    const rows = [1, 2, 3].map((n) => ({ t: n * 1000, id: `id${n}` }));
    const key = (row: { t: number; id: string }) => ({ at: new Date(row.t), id: row.id });
    expect(nextAfter(rows, 2, key)).to.equal(b64('2000.id2'));
    expect(nextAfter(rows, 3, key), 'exactly a page').to.equal(null);
    expect(nextAfter(rows.slice(0, 1), 2, key)).to.equal(null);
    expect(nextAfter([], 1, key)).to.equal(null);
  });
});
