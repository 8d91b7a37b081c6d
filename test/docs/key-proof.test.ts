import { expect } from 'chai';
import { ed25519 } from '@noble/curves/ed25519.js';
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import { verifyAssetSignature } from '../../packages/core/src/crypto/index.js';
import { keyRegistrationMessage } from '../../packages/core/src/directory/index.js';
import { fencedBlock } from './doc-snippets.js';

describe('docs/wallet-integration.md key proof example', () => {
  const message = fencedBlock('Wallet Backend key registration\nservice: https://wallet.example.com').replace(/\n$/, '');
  const body = JSON.parse(fencedBlock('"signature": "1f1ccef5', 'json')) as { asset: 'grin'; public_key: string; signature: string };
  const secret = hexToBytes('f4f329fb1ed55c9dfebce09499a6ab0ea2c2bdd81b6178c8ea6f9247fe33aad5');

  it('prints the text the server asks the key to sign', () => {
    expect(message).to.equal(
      keyRegistrationMessage({ service: 'https://wallet.example.com', userId: '6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab', asset: body.asset, publicKey: body.public_key }),
    );
  });

  it('prints the signature the documented seed makes, and the server accepts it', () => {
    expect(body.public_key).to.equal(bytesToHex(ed25519.getPublicKey(secret)));
    expect(body.signature).to.equal(bytesToHex(ed25519.sign(utf8ToBytes(message), secret)));
    expect(verifyAssetSignature({ asset: 'grin', publicKey: body.public_key, message: utf8ToBytes(message), signature: body.signature, cryptonoteNetwork: 'mainnet' })).to.equal(true);
  });
});
