import { defineErrors } from '@wallet/backend-core';

/** The relay's refusals: a non-party sees 404 (existence is never disclosed), a failed precondition 409. */
export const grinRelayErrors = defineErrors({
  relay_recipient_unknown: { status: 400, message: 'The recipient is not a registered user.' },
  relay_recipient_self: { status: 400, message: 'A relay entry needs a recipient other than the sender.' },
  relay_slate_exists: { status: 409, message: 'A relay entry with this slate_id already exists.' },
  relay_not_found: { status: 404, message: 'No relay entry with this slate_id for this user.' },
  relay_wrong_party: { status: 409, message: 'This step belongs to the other party of the relay entry.' },
  relay_expired: { status: 409, message: 'The relay entry has expired.' },
  relay_not_awaiting_response: { status: 409, message: 'The relay entry is not awaiting a response.' },
  relay_not_awaiting_finalization: { status: 409, message: 'The relay entry is not awaiting finalization.' },
  relay_finalized: { status: 409, message: 'The relay entry is already finalized.' },
});
