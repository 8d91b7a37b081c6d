import { defineErrors } from './define-errors.js';

/** Error codes raised by core itself. Each is documented in docs/errors.md (a test keeps both in step). */
export const coreErrors = defineErrors({
  invalid_request: { status: 400, message: 'The request is invalid.' },
  invalid_json: { status: 400, message: 'The request body is not valid JSON.' },
  unauthorized: { status: 401, message: 'Missing or invalid access token.' },
  signed_action_invalid: { status: 401, message: 'The signed proof is invalid.' },
  nonce_invalid: { status: 401, message: 'The nonce is unknown, expired, already used or not issued for this action.' },
  invalid_refresh_token: { status: 401, message: 'The refresh token is invalid, expired or already used.' },
  not_found: { status: 404, message: 'Not found.' },
  method_not_allowed: { status: 405, message: 'Method not allowed.' },
  conflict: { status: 409, message: 'The resource already exists.' },
  payload_too_large: { status: 413, message: 'The request body is too large.' },
  unsupported_media_type: { status: 415, message: 'The request body must be application/json.' },
  rate_limited: { status: 429, message: 'Too many requests; retry later.' },
  /** Never seen by the client (it has gone): the status and code the request's log line carries. */
  client_closed: { status: 499, message: 'The client closed the connection before the request was complete.' },
  internal_error: { status: 500, message: 'Internal server error.' },
  not_ready: { status: 503, message: 'The service is not ready: the database is unreachable or a migration is pending.' },
});
