import type { CryptonoteAsset } from './address.js';
import { assertWebsiteChallenge, type WebsiteChallenge, type WebsiteLoginAudience } from '../messages.js';
import type { CryptonoteSigner } from './signer.js';

/** The JSON body of POST /api/v1/auth/website/verify for an xmr or wow key. */
export interface CryptonoteWebsiteVerifyRequest {
  challenge_id: string;
  asset: CryptonoteAsset;
  /** The proven address. */
  public_key: string;
  /** SigV2 by the spend key over the challenge text as is. */
  signature: string;
}

/** What {@link buildCryptonoteWebsiteLogin} needs. */
export interface CryptonoteWebsiteLoginInput extends WebsiteLoginAudience {
  challenge: WebsiteChallenge;
  /** The key of an address the account proved ({@link buildCryptonoteKeyProof}) first. */
  signer: CryptonoteSigner;
}

/**
 * Website login with a Monero/Wownero key (docs section 4): signs the challenge text as is and
 * returns the verify body. Throws, before signing, when the text is not a website-login challenge
 * for `challenge_id` from `expectedOrigin` to `expectedService` (see {@link assertWebsiteChallenge}).
 */
export async function buildCryptonoteWebsiteLogin(input: CryptonoteWebsiteLoginInput): Promise<CryptonoteWebsiteVerifyRequest> {
  assertWebsiteChallenge(input.challenge, input);
  const publicKey = await input.signer.address();
  const signature = await input.signer.signMessage(input.challenge.challenge);
  return { challenge_id: input.challenge.challenge_id, asset: input.signer.asset, public_key: publicKey, signature };
}
