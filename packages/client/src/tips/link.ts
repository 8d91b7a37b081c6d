import { TipEnvelopeError } from './errors.js';

const UUID = /[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const FRAGMENT = /^[0-9a-fA-F]{64}$/;

/**
 * A public tip's claim link: the create answer's `share_url`, `#`, the fragment. Browsers never
 * send the fragment to a server, but the page at `share_url` reads it, and the fragment opens the
 * tip's key: so `share_url` must be an http(s) URL and, when `expectedBase` is given (the
 * operator's TIP_SHARE_BASE, as the wallet knows it), start with it.
 */
export function tipShareLink(shareUrl: string, fragment: string, expectedBase?: string): string {
  if (!FRAGMENT.test(fragment)) throw new TipEnvelopeError('tip_input_invalid', 'the fragment must be 64 hex characters');
  if (shareUrl.includes('#')) throw new TipEnvelopeError('tip_input_invalid', 'the share URL already has a fragment');
  if (!/^https?:\/\/[^/?#]+/i.test(shareUrl)) throw new TipEnvelopeError('tip_input_invalid', 'the share URL is not an http(s) URL');
  if (expectedBase !== undefined && !shareUrl.startsWith(expectedBase)) throw new TipEnvelopeError('tip_input_invalid', `the share URL is not under ${expectedBase}`);
  return `${shareUrl}#${fragment.toLowerCase()}`;
}

/** What a claim link carries. */
export interface TipLink {
  /** The tip id (a UUID, lower-case): the last part of the share URL, and the id to claim. */
  tip_id: string;
  /** The link secret, 64 lower-case hex, for {@link openPublicTip}. */
  fragment: string;
}

/** The tip id and the secret of a claim link (`<share base><tip id>#<64 hex>`), or `tip_link_damaged`. */
export function parseTipLink(link: string): TipLink {
  const at = typeof link === 'string' ? link.indexOf('#') : -1;
  const id = at < 0 ? null : UUID.exec(link.slice(0, at));
  const fragment = at < 0 ? '' : link.slice(at + 1);
  if (id === null || !FRAGMENT.test(fragment)) throw new TipEnvelopeError('tip_link_damaged', 'this link is damaged: it is not a tip link ending in a tip id and a 64-hex secret');
  return { tip_id: id[0].toLowerCase(), fragment: fragment.toLowerCase() };
}
