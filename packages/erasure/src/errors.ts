import { defineErrors } from '@wallet/backend-core';

/**
 * Erasure's refusals. A bad proof is core's 401 `signed_action_invalid` (and consumes nothing).
 * For a key that belongs to no user every route answers exactly as for a user, so these codes
 * only ever reach the holder of a registered key.
 */
export const erasureErrors = defineErrors({
  erasure_off: { status: 400, message: 'Account erasure is not enabled on this server.' },
  erasure_not_found: { status: 404, message: 'No such erasure request for this account.' },
  erasure_not_confirmable: { status: 400, message: 'The erasure request can no longer be confirmed.' },
  erasure_not_cancellable: { status: 400, message: 'The erasure request can no longer be cancelled.' },
});
