import { taggedPubkeys, type NostrEvent } from './event.js';

/** The gift wrap (NIP-59) and the DM relay list (NIP-17): what a registered user may post without premium. */
export const GIFT_WRAP_KIND = 1059;
export const DM_RELAY_LIST_KIND = 10050;
export const FREE_KINDS: readonly number[] = [GIFT_WRAP_KIND, DM_RELAY_LIST_KIND];
/** A gift wrap names one recipient; more `p` tags than this is not a DM to an inbox. */
export const MAX_GIFT_WRAP_RECIPIENTS = 16;

/** Where an author stands with the wallet's users, by npub only (`users.nostr_pubkey`). */
export type AuthorStanding = 'premium' | 'registered' | 'unregistered';

/** An answer in NIP-01 `OK` terms: the relay accepts, or refuses with this message. */
export interface AdmissionDecision {
  accept: boolean;
  /** `""` when accepted; a NIP-01 machine-readable prefix (`blocked:`, `invalid:`, `error:`) when refused. */
  message: string;
}

export const ACCEPT: AdmissionDecision = Object.freeze({ accept: true, message: '' });

export const REFUSALS = {
  needsPremium: 'blocked: this kind of event needs premium on this relay',
  giftWrapNotForUser: 'blocked: gift wraps are accepted here only for the relay’s users',
  notAUser: 'blocked: only the relay’s users may post here; others may send them gift-wrapped DMs',
  unavailable: 'error: the relay cannot check admission right now; try again later',
} as const;

const refuse = (message: string): AdmissionDecision => ({ accept: false, message });

/** The fail-closed answer: the wallet could not be asked in time. */
export const unavailable = (): AdmissionDecision => refuse(REFUSALS.unavailable);

/**
 * The spec's admission table under the `premium-post` write policy (Events 4): a premium author
 * posts any kind; a registered author posts gift wraps and the DM relay list free, nothing else;
 * an unregistered author posts only a gift wrap addressed to registered users (a DM to their
 * inbox). `recipientsRegistered` answers for the event's `p` tags.
 */
export function decide(event: NostrEvent, author: AuthorStanding, recipientsRegistered: (pubkeys: string[]) => boolean): AdmissionDecision {
  if (author === 'premium') return ACCEPT;
  if (author === 'registered') return FREE_KINDS.includes(event.kind) ? ACCEPT : refuse(REFUSALS.needsPremium);
  if (event.kind !== GIFT_WRAP_KIND) return refuse(REFUSALS.notAUser);
  const recipients = taggedPubkeys(event);
  if (recipients.length === 0 || recipients.length > MAX_GIFT_WRAP_RECIPIENTS || !recipientsRegistered(recipients)) return refuse(REFUSALS.giftWrapNotForUser);
  return ACCEPT;
}
