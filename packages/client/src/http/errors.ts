/** The body of every error the server answers (its `ErrorResponse` schema). */
export interface ErrorBody {
  error: { code: string; message: string; details?: Array<{ path?: string; message?: string }>; request_id?: string };
}

/**
 * A refusal from the server, carrying its stable error code (`username_taken`,
 * `signed_action_invalid`, …: docs/errors.md) and HTTP status. Branch on `code`, never on `message`.
 */
export class WalletApiError extends Error {
  override readonly name = 'WalletApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The server's id of the request (`X-Request-Id`), for its operator's logs. */
    readonly requestId: string | null,
    readonly details: ErrorBody['error']['details'] = undefined,
  ) {
    super(message);
  }
}

const isErrorBody = (value: unknown): value is ErrorBody =>
  typeof value === 'object' && value !== null && typeof (value as ErrorBody).error === 'object' && (value as ErrorBody).error !== null && typeof (value as ErrorBody).error.code === 'string';

/** The error of a failed response: the server's code when the body is its error shape, else `http_<status>`. */
export function apiErrorOf(response: Response, body: unknown): WalletApiError {
  const requestId = response.headers.get('x-request-id');
  if (isErrorBody(body)) return new WalletApiError(response.status, body.error.code, body.error.message, body.error.request_id ?? requestId, body.error.details);
  return new WalletApiError(response.status, `http_${response.status}`, `HTTP ${response.status} without the server's error body`, requestId);
}
