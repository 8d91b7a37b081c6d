import { createDecipheriv, createHmac } from 'node:crypto';
import { expect } from 'chai';

/**
 * A reference NIP-44 v2 opener written out from the NIP on node:crypto, independent of
 * nostr-tools and of @wallet/client, for tests that check sealed envelopes: message keys by
 * HKDF-Expand, the MAC checked, ChaCha20 with counter 0.
 */
export function nip44Decrypt(payloadBase64: string, conversationKey: Buffer): { plaintext: string; padded: Buffer; payload: Buffer } {
  const payload = Buffer.from(payloadBase64, 'base64');
  expect(payload[0]).to.equal(2);
  const nonce = payload.subarray(1, 33);
  const ciphertext = payload.subarray(33, payload.length - 32);
  // HKDF-Expand only: node's hkdfSync extracts first, so expand by hand (RFC 5869 T(1) ‖ T(2) ‖ T(3)).
  let block = Buffer.alloc(0);
  let keys = Buffer.alloc(0);
  for (let i = 1; keys.length < 76; i++) {
    block = createHmac('sha256', conversationKey).update(Buffer.concat([block, nonce, Buffer.from([i])])).digest();
    keys = Buffer.concat([keys, block]);
  }
  const [chachaKey, chachaNonce, hmacKey] = [keys.subarray(0, 32), keys.subarray(32, 44), keys.subarray(44, 76)];
  const mac = createHmac('sha256', hmacKey).update(Buffer.concat([nonce, ciphertext])).digest();
  expect(mac.equals(payload.subarray(payload.length - 32)), 'MAC').to.equal(true);
  const decipher = createDecipheriv('chacha20', chachaKey, Buffer.concat([Buffer.alloc(4), chachaNonce]));
  const padded = Buffer.concat([decipher.update(ciphertext), decipher.final()]);
  const length = padded.readUInt16BE(0);
  return { plaintext: padded.subarray(2, 2 + length).toString('utf8'), padded, payload };
}
