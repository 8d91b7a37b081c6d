import { slatepackAddress, type SlatepackHrp } from './slatepack.js';
import type { GrinSigner } from './signer.js';

/**
 * Which form of the key a request names: the 64-hex primary key, or the slatepack address with
 * the deployment's HRP (`grin` on mainnet, `tgrin` elsewhere). The server keeps one row per form.
 */
export type GrinKeyForm = { form: 'key' } | { form: 'slatepack'; hrp: SlatepackHrp };

/** The `public_key` value of `form` for the signer's key. */
export async function grinPublicKeyValue(signer: GrinSigner, form: GrinKeyForm): Promise<string> {
  const publicKey = (await signer.publicKey()).toLowerCase();
  return form.form === 'key' ? publicKey : slatepackAddress(publicKey, form.hrp);
}
