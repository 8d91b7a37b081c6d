/**
 * The texts any key signs for the server (docs/wallet-integration.md, sections 1 to 5): the
 * website-login challenge, checked before anything signs it, and the texts the client writes
 * (login, key rotation, Nostr merge, key registration).
 * Lines joined with "\n", no trailing newline. Shared by the three entry points; it imports
 * nothing, so `@wallet/client/cryptonote` and `@wallet/client/grin` load it without the main entry.
 * @module
 */

/** What `POST /api/v1/auth/website/challenge` answers. */
export interface WebsiteChallenge {
  /** The text to show the user and sign byte for byte. */
  challenge: string;
  challenge_id: string;
  expires_at?: string;
}

const CHALLENGE =
  /^([a-z][a-z0-9+.-]*:\/\/[^\s/]+) asks you to sign in with your wallet\.\nservice: (\S+)\nchallenge: ([0-9a-f]{64})\nexpires: (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)$/;

/** The fields of a website-login challenge text. */
export interface ParsedWebsiteChallenge {
  origin: string;
  service: string;
  challengeId: string;
  expires: string;
}

/**
 * Reads `<origin> asks you to sign in with your wallet.` / `service:` / `challenge:` /
 * `expires:`; null when the text is not exactly one. A wallet shows the origin to its user.
 */
export function parseWebsiteChallenge(text: string): ParsedWebsiteChallenge | null {
  const match = CHALLENGE.exec(text);
  return match === null ? null : { origin: match[1]!, service: match[2]!, challengeId: match[3]!, expires: match[4]! };
}

/** Whom a website login is for: both are checked against the challenge text before anything signs it. */
export interface WebsiteLoginAudience {
  /**
   * The origin (`scheme://host[:port]`) of the page that asked the wallet to sign in, as the
   * wallet itself saw it (the browser extension's sender, the URL the user opened), never as the
   * page says: a page may fetch a challenge naming another site, and the server can check the
   * origin only when a browser sends it.
   */
  expectedOrigin: string;
  /** The deployment the wallet uses (its PUBLIC_API_URL, exactly as configured). */
  expectedService: string;
}

/**
 * Checks that `challenge.challenge` is a website-login challenge for `challenge_id`, from the
 * origin that asked and for this deployment, before anything signs it; throws otherwise. A key
 * that signs only this shape as a "login" cannot be talked into signing a key proof for somebody
 * else's account, nor into logging a phishing page in as another site.
 */
export function assertWebsiteChallenge(challenge: WebsiteChallenge, audience: WebsiteLoginAudience): void {
  const parsed = parseWebsiteChallenge(challenge.challenge);
  if (parsed === null) throw new TypeError('not a Wallet Backend website-login challenge');
  if (parsed.challengeId !== challenge.challenge_id) throw new TypeError('the challenge text names another challenge_id');
  if (parsed.origin !== audience.expectedOrigin) throw new TypeError(`the challenge names ${parsed.origin}, but ${audience.expectedOrigin} asked to sign in`);
  if (parsed.service !== audience.expectedService) throw new TypeError(`the challenge is for ${parsed.service}, not ${audience.expectedService}`);
}

/** Who a key proof is for. */
export interface KeyProofContext {
  /** PUBLIC_API_URL exactly as configured. */
  service: string;
  /** The account's `user_id` (AuthResponse or `GET /api/v1/auth/me`). */
  userId: string;
}

/** `title` then one `name: value` line per field, joined by `\n`, no trailing newline; every value a non-empty single line, so no field can forge another line. */
function signedText(title: string, fields: Array<[string, string | number]>): string {
  const lines = fields.map(([name, value]) => {
    const text = String(value);
    if (text === '' || /[\r\n]/.test(text)) throw new TypeError(`${title}: ${name} must be a non-empty single line`);
    return `${name}: ${text}`;
  });
  return [title, ...lines].join('\n');
}

/** The key-registration text (docs section 5, "Key proofs"); `publicKey` exactly as the request carries it. */
export function keyRegistrationMessage(context: KeyProofContext, asset: string, publicKey: string): string {
  return signedText('Wallet Backend key registration', [['service', context.service], ['user', context.userId], ['asset', asset], ['public_key', publicKey]]);
}

/** The BTC login text (docs section 1): `Wallet Backend login` / `service:` / `pubkey_hash:` / `timestamp:`. */
export function extensionLoginMessage(service: string, pubkeyHashHex: string, timestamp: number): string {
  return signedText('Wallet Backend login', [['service', service], ['pubkey_hash', pubkeyHashHex], ['timestamp', timestamp]]);
}

/** The key-rotation text (docs section 1): `Wallet Backend key rotation` / `service:` / `new_pubkey_hash:` / `timestamp:` (the login's). */
export function keyRotationMessage(service: string, newPubkeyHash: string, timestamp: number): string {
  return signedText('Wallet Backend key rotation', [['service', service], ['new_pubkey_hash', newPubkeyHash], ['timestamp', timestamp]]);
}

/** The Nostr registration's merge text (docs section 3): `Wallet Backend Nostr registration` / `service:` / `nostr_pubkey:` / `nonce:`. */
export function nostrMergeMessage(service: string, nostrPubkey: string, nonce: string): string {
  return signedText('Wallet Backend Nostr registration', [['service', service], ['nostr_pubkey', nostrPubkey], ['nonce', nonce]]);
}
