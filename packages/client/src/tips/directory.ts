const XONLY = /^[0-9a-fA-F]{64}$/;

/**
 * The recipient's Nostr key from the directory's NIP-05 document
 * (`GET /.well-known/nostr.json?name=<username>`), lower-case x-only hex, or null when the user
 * has linked none (such a user cannot be sent a targeted tip).
 */
export function recipientNostrKey(nostrJson: unknown, username: string): string | null {
  const names = (nostrJson as { names?: unknown } | null)?.names;
  if (typeof names !== 'object' || names === null) return null;
  const key = (names as Record<string, unknown>)[username.toLowerCase()];
  return typeof key === 'string' && XONLY.test(key) ? key.toLowerCase() : null;
}
