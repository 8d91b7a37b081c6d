import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import type { AuthResponse, Sessions } from '../auth/index.js';
import type { Challenges } from '../challenges/index.js';
import { cryptonoteNetworkOf, isAsset, type Asset, type ChainNetwork } from '../chains/index.js';
import type { Clock } from '../clock/index.js';
import { assetSignatureShapeOk, compressedSecp256k1Hex, hash160, looksLikeSlatepackAddress, verifyAssetSignature, type Peppers } from '../crypto/index.js';
import type { KeyRepository } from '../directory/index.js';
import { identityErrors } from './errors.js';
import type { IdentityRepository } from './identity-repo.js';
import type { LoginEventLog } from './login-events.js';
import { websiteChallengeMessage } from './messages.js';
import type { Database } from '../storage/index.js';

export const WEBSITE_LOGIN_PURPOSE = 'website_login';

export interface WebsiteVerifyRequest {
  challenge_id: string;
  asset: string;
  public_key: string;
  signature: string;
}

export interface WebsiteDeps {
  db: Database;
  identities: IdentityRepository;
  keys: KeyRepository;
  sessions: Sessions;
  challenges: Challenges;
  loginEvents: LoginEventLog;
  peppers: Peppers;
  clock: Clock;
  service: string;
  network: ChainNetwork;
}

/** An origin as browsers send it: scheme, host, optional port; nothing else. */
export function parseOrigin(value: string): string | null {
  if (value.length > 200) return null;
  try {
    const url = new URL(value);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
    return url.origin === value ? value : null;
  } catch {
    return null;
  }
}

/**
 * Website login (spec › rule 9): an origin-bound challenge, answered by a signature of one
 * registered key. Format checks come first and change nothing; then the challenge is burned
 * (single use, even if everything after fails); then expiry; then the asset's signature
 * scheme; then the ALREADY registered owner of the proven key. Never creates an account.
 */
export class WebsiteLoginService {
  constructor(private readonly deps: WebsiteDeps) {}

  async challenge(origin: string): Promise<{ challenge: string; challenge_id: string; expires_at: string }> {
    const parsed = parseOrigin(origin);
    if (parsed === null) throw identityErrors.create.website_origin_invalid();
    const issued = await this.deps.challenges.issue(WEBSITE_LOGIN_PURPOSE, { subject: parsed });
    return {
      challenge: websiteChallengeMessage({ origin: parsed, service: this.deps.service, nonce: issued.nonce, expiresAt: issued.expiresAt }),
      challenge_id: issued.nonce,
      expires_at: issued.expiresAt.toISOString(),
    };
  }

  async verify(request: WebsiteVerifyRequest, requestOrigin: string | undefined, clientIp: string): Promise<AuthResponse> {
    const { deps } = this;
    if (!isAsset(request.asset)) throw identityErrors.create.website_asset_invalid();
    const asset = request.asset;
    if (!assetSignatureShapeOk(asset, request.public_key, request.signature)) throw identityErrors.create.website_signature_format();
    if (!/^[0-9a-f]{64}$/.test(request.challenge_id)) throw identityErrors.create.website_challenge_invalid();

    const challenge = await deps.challenges.take(request.challenge_id, WEBSITE_LOGIN_PURPOSE);
    if (challenge === null || challenge.subject === null) throw identityErrors.create.website_challenge_invalid();
    if (challenge.expiresAt <= deps.clock.now()) throw identityErrors.create.website_challenge_invalid();
    // A browser names the page that sent the request; a challenge issued to another site is refused.
    if (requestOrigin !== undefined && requestOrigin !== challenge.subject) throw identityErrors.create.website_challenge_invalid();

    const message = utf8ToBytes(websiteChallengeMessage({ origin: challenge.subject, service: deps.service, nonce: challenge.nonce, expiresAt: challenge.expiresAt }));
    const userId = await this.provenOwner(asset, request.public_key, request.signature, message);
    // One transaction, as the other logins: a session refused (a plugin's session guard) leaves no login event.
    return deps.db.transaction(async (trx) => {
      await deps.loginEvents.record({ userId, platform: 'web', clientIp }, trx);
      return deps.sessions.start(userId, 'web', trx);
    });
  }

  /**
   * The account that proved `publicKey` (docs/decisions.md, "Key ownership"), once the signature
   * shows the caller holds it. BTC is the identity itself (users.pubkey_hash, proven at
   * registration), else a key row proven with a key proof; never a merely registered key.
   */
  private async provenOwner(asset: Asset, publicKey: string, signature: string, message: Uint8Array): Promise<string> {
    const { deps } = this;
    if (!verifyAssetSignature({ asset, publicKey, message, signature, cryptonoteNetwork: cryptonoteNetworkOf(deps.network) })) {
      throw identityErrors.create.website_signature_invalid();
    }
    let owner: string | null = null;
    let stored = publicKey;
    if (asset === 'btc' || asset === 'ltc') {
      stored = compressedSecp256k1Hex(publicKey)!;
      if (asset === 'btc') owner = (await deps.identities.byPubkeyHash(deps.peppers.pepper(bytesToHex(hash160(hexToBytes(stored))))))?.id ?? null;
    } else if (asset === 'grin') {
      stored = publicKey.toLowerCase();
    }
    const keyType = asset === 'grin' && looksLikeSlatepackAddress(publicKey) ? 'slatepack_address' : 'primary';
    owner ??= await deps.keys.provenOwner({ asset, keyTypes: [keyType], publicKey: stored });
    if (owner === null) throw identityErrors.create.website_wallet_unknown();
    return owner;
  }
}
