import { grinPublicKeyValue, type GrinKeyForm } from './key-form.js';
import { assertWebsiteChallenge, type WebsiteChallenge, type WebsiteLoginAudience } from '../messages.js';
import type { GrinSigner } from './signer.js';

/** The JSON body of POST /api/v1/auth/website/verify for a grin key. */
export interface GrinWebsiteVerifyRequest {
  challenge_id: string;
  asset: 'grin';
  /** The proven primary key (64 hex) or the proven slatepack address. */
  public_key: string;
  /** ed25519 over the challenge text as is, 128 hex. */
  signature: string;
}

/** What {@link buildGrinWebsiteLogin} needs. */
export interface GrinWebsiteLoginInput extends WebsiteLoginAudience {
  challenge: WebsiteChallenge;
  /** The key, proven on the account first ({@link buildGrinKeyProof}) in the form `key` names. */
  signer: GrinSigner;
  /** Which proven form to name: the primary key (default) or the slatepack address. */
  key?: GrinKeyForm;
}

/**
 * Website login with a Grin key (docs section 4): signs the challenge text as is with ed25519
 * and returns the verify body. Throws, before signing, when the text is not a website-login
 * challenge for `challenge_id` from `expectedOrigin` to `expectedService` (see {@link assertWebsiteChallenge}).
 */
export async function buildGrinWebsiteLogin(input: GrinWebsiteLoginInput): Promise<GrinWebsiteVerifyRequest> {
  assertWebsiteChallenge(input.challenge, input);
  const publicKey = await grinPublicKeyValue(input.signer, input.key ?? { form: 'key' });
  const signature = await input.signer.signMessage(input.challenge.challenge);
  return { challenge_id: input.challenge.challenge_id, asset: 'grin', public_key: publicKey, signature };
}
