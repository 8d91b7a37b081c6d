import { defineErrors } from '@wallet/backend-core';

/**
 * Erasure's refusals. A proof that does not verify is core's 401 `signed_action_invalid`, a used
 * or expired nonce core's 401 `nonce_invalid`. For a key that belongs to no user the erasure
 * routes answer 200 where an account could (docs/erasure.md), so `erasure_not_*` reach only the
 * holder of a registered key; `account_erasure_pending` is a login or refresh refused while the
 * account's erasure is confirmed.
 */
export const erasureErrors = defineErrors({
  erasure_off: { status: 400, message: 'Account erasure is not enabled on this server.' },
  erasure_not_found: { status: 404, message: 'No such erasure request for this account.' },
  erasure_not_confirmable: { status: 400, message: 'The erasure request can no longer be confirmed.' },
  erasure_not_cancellable: { status: 400, message: 'The erasure request can no longer be cancelled.' },
  account_erasure_pending: { status: 403, message: 'This account is frozen by a confirmed erasure request: cancel the erasure first to sign in again.' },
});
