/**
 * Website login with a BTC or LTC key (docs/wallet-integration.md §4): the wallet signs the
 * challenge text the server issued, as is, and the site posts `POST /api/v1/auth/website/verify`.
 * @module
 */
import { assertWebsiteChallenge, type WebsiteChallenge, type WebsiteLoginAudience } from '../messages.js';
import { assertSignerAsset, type AssetBitcoinSigner, type MessageAsset } from './bitcoin-message.js';

/** The JSON body of `POST /api/v1/auth/website/verify`. */
export interface WebsiteVerifyRequest {
  challenge_id: string;
  asset: MessageAsset;
  public_key: string;
  signature: string;
}

/** What {@link buildWebsiteLogin} needs. */
export interface WebsiteLoginInput extends WebsiteLoginAudience {
  challenge: WebsiteChallenge;
  asset: MessageAsset;
  /** The key: the account's BTC identity (btc), or a key it proved with a key proof (btc, ltc); magic of `asset`. */
  signer: AssetBitcoinSigner;
}

/**
 * Signs `challenge.challenge` as is and returns the verify body, after checking that the text is
 * exactly a website-login challenge for `challenge_id`, from `expectedOrigin` (the page that
 * asked) to `expectedService`: a site can neither pass off another text, such as a key proof for
 * somebody else's account, as a login, nor log itself in as another site. `public_key` is the signer's key as it gives it (66-hex compressed,
 * headers 31–34; or 130-hex `04…`, headers 27–30): the server requires the header to match
 * that encoding. Failures after the format check burn the challenge.
 */
export async function buildWebsiteLogin(input: WebsiteLoginInput): Promise<WebsiteVerifyRequest> {
  assertSignerAsset(input.signer, input.asset);
  assertWebsiteChallenge(input.challenge, input);
  return {
    challenge_id: input.challenge.challenge_id,
    asset: input.asset,
    public_key: await input.signer.publicKey(),
    signature: await input.signer.signMessage(input.challenge.challenge),
  };
}
