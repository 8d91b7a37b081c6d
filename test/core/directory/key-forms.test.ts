import { expect } from 'chai';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { bytesToHex, concatBytes } from '@noble/hashes/utils.js';
import * as v from 'valibot';
import { cryptonoteBase58Encode, decodeCryptonoteAddress } from '../../../packages/core/src/crypto/index.js';
import { normaliseKey, receivingKey, registerKeyRequest, type SubmittedKey, type UserKeyInfo } from '../../../packages/core/src/directory/index.js';
import { BtcKey, CryptonoteKey, GrinKey } from '../../harness/index.js';

/**
 * The key-ownership helpers of the directory, as units (issue 29 item 11: they became mutation
 * targets): which submitted values are refused and with what message, which stored row is the
 * one a payer is shown, and the POST /keys signature field's messages. Pure functions: no storage.
 */

function refusal(key: SubmittedKey, network: 'mainnet' | 'stagenet' = 'mainnet'): { code: string; status: number; message: string } {
  try {
    normaliseKey(key, network);
  } catch (err) {
    const { code, status, message } = err as { code: string; status: number; message: string };
    return { code, status, message };
  }
  throw new Error(`accepted: ${JSON.stringify(key)}`);
}

const keyInvalid = (message: string) => ({ code: 'key_invalid', status: 400, message });

/** An integrated Monero mainnet address (tag 19: spend key, view key, 8-byte payment id). */
function integratedXmrAddress(key: CryptonoteKey): string {
  const body = concatBytes(Uint8Array.of(19), key.publicSpendKey, key.publicViewKey, Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8));
  return cryptonoteBase58Encode(concatBytes(body, keccak_256(body).slice(0, 4)));
}

describe('directory: normaliseKey refusals name what is wrong', () => {
  it('BTC and LTC: no spend key; a secp256k1 public key in hex', () => {
    const btc = new BtcKey();
    for (const asset of ['btc', 'ltc'] as const) {
      expect(refusal({ asset, public_key: btc.publicKeyHex, public_spend_key: 'ab'.repeat(32) })).to.deep.equal(keyInvalid(`${asset} keys have no public_spend_key.`));
      expect(refusal({ asset, public_key: 'zz' })).to.deep.equal(
        keyInvalid(`A ${asset} key is a secp256k1 public key in hex: 66 characters starting 02 or 03, or 130 starting 04.`),
      );
    }
  });

  it('XMR: an integrated address, another network and a mismatched spend key are refused', () => {
    const xmr = new CryptonoteKey('xmr');
    const integrated = integratedXmrAddress(xmr);
    // The address really is integrated: the refusal is for its kind, not for being undecodable.
    expect(decodeCryptonoteAddress(integrated, 'xmr')?.kind).to.equal('integrated');
    expect(refusal({ asset: 'xmr', public_key: integrated })).to.deep.equal(keyInvalid('A xmr key is a standard or subaddress xmr address.'));
    expect(refusal({ asset: 'xmr', public_key: 'not-an-address' })).to.deep.equal(keyInvalid('A xmr key is a standard or subaddress xmr address.'));
    expect(refusal({ asset: 'xmr', public_key: xmr.address('stagenet') })).to.deep.equal(keyInvalid('The xmr address is not a mainnet address.'));
    expect(refusal({ asset: 'xmr', public_key: xmr.address() }, 'stagenet')).to.deep.equal(keyInvalid('The xmr address is not a stagenet address.'));
    expect(refusal({ asset: 'xmr', public_key: xmr.address(), public_spend_key: 'ab'.repeat(32) })).to.deep.equal(keyInvalid('public_spend_key does not match the address.'));
    // The matching spend key, in any case, is accepted and stored as decoded.
    const spend = bytesToHex(xmr.publicSpendKey);
    expect(normaliseKey({ asset: 'xmr', public_key: xmr.address(), public_spend_key: spend.toUpperCase() }, 'mainnet')).to.deep.equal({
      asset: 'xmr',
      keyType: 'primary',
      publicKey: xmr.address(),
      publicSpendKey: spend,
    });
  });

  it('Grin: no spend key (for either form), a valid slatepack address of this network, or 64 hex', () => {
    const grin = new GrinKey();
    for (const value of [grin.publicKeyHex, grin.slatepackAddress]) {
      expect(refusal({ asset: 'grin', public_key: value, public_spend_key: 'ab'.repeat(32) })).to.deep.equal(keyInvalid('grin keys have no public_spend_key.'));
    }
    // A single changed character breaks the bech32 checksum.
    const broken = grin.slatepackAddress.slice(0, -1) + (grin.slatepackAddress.endsWith('q') ? 'p' : 'q');
    expect(refusal({ asset: 'grin', public_key: broken })).to.deep.equal(keyInvalid('The slatepack address is not valid bech32 of an ed25519 key.'));
    expect(refusal({ asset: 'grin', public_key: grin.slatepackAddress }, 'stagenet')).to.deep.equal(keyInvalid('A slatepack address on this network starts with tgrin1.'));
    expect(refusal({ asset: 'grin', public_key: 'ab'.repeat(31) })).to.deep.equal(keyInvalid('A grin primary key is a 64-hex ed25519 public key.'));
  });
});

describe('directory: receivingKey picks the row a payer is shown', () => {
  const row = (asset: UserKeyInfo['asset'], keyType: UserKeyInfo['key_type'], publicKey: string): UserKeyInfo => ({ asset, key_type: keyType, public_key: publicKey, public_spend_key: null, proven: false });
  const grin = new GrinKey();

  it('another asset: its primary row only, never a row of another type', () => {
    const primary = row('btc', 'primary', 'btc-primary');
    expect(receivingKey([row('btc', 'slatepack_address', 'odd'), primary], 'btc')).to.equal(primary);
    expect(receivingKey([row('btc', 'slatepack_address', 'odd')], 'btc')).to.equal(null);
    expect(receivingKey([], 'ltc')).to.equal(null);
  });

  it('grin: its own slatepack-address row, else its primary row while that holds an address, else nothing', () => {
    const address = row('grin', 'slatepack_address', grin.slatepackAddress);
    // Rows of other assets come first (the repository orders by asset) and are never taken for grin.
    const others = [row('btc', 'primary', grin.slatepackAddress), row('btc', 'slatepack_address', grin.slatepackAddress)];
    expect(receivingKey([...others, row('grin', 'primary', grin.publicKeyHex), address], 'grin')).to.equal(address);
    const legacy = row('grin', 'primary', grin.slatepackAddress);
    expect(receivingKey([...others, legacy], 'grin')).to.equal(legacy);
    expect(receivingKey([...others, row('grin', 'primary', grin.publicKeyHex)], 'grin')).to.equal(null);
    expect(receivingKey(others, 'grin')).to.equal(null);
    expect(receivingKey([], 'grin')).to.equal(null);
  });
});

describe('directory: the POST /keys signature field', () => {
  const body = { asset: 'grin', public_key: new GrinKey().publicKeyHex };
  const messageOf = (signature: unknown) => {
    const result = v.safeParse(registerKeyRequest, { ...body, signature });
    return result.success ? 'accepted' : result.issues[0].message;
  };

  it('is optional, and a 1-300 character string when present', () => {
    expect(v.safeParse(registerKeyRequest, body).success).to.equal(true);
    expect(messageOf('a'.repeat(300))).to.equal('accepted');
    expect(messageOf(5)).to.equal('must be a string');
    expect(messageOf('')).to.equal('must not be empty');
    expect(messageOf('a'.repeat(301))).to.equal('is too long');
  });
});
