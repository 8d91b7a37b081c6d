/** One field-level validation problem, in BTCPay's `{path, message}` shape. */
export interface ErrorDetail {
  path: string;
  message: string;
}

export interface WalletErrorOptions {
  message?: string;
  details?: ErrorDetail[];
  headers?: Record<string, string>;
  cause?: unknown;
}

/**
 * The single error type of the backend, always built from a catalogue (`defineErrors`), so its
 * message is written by us and safe to show. The HTTP kit renders it as
 * `{"error": {"code", "message", "details"?}}`; the `cause` is logged, never sent.
 */
export class WalletError extends Error {
  readonly code: string;
  readonly status: number;
  readonly details: ErrorDetail[] | undefined;
  readonly headers: Record<string, string>;

  constructor(code: string, status: number, message: string, options: Omit<WalletErrorOptions, 'message'> = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'WalletError';
    this.code = code;
    this.status = status;
    this.details = options.details;
    this.headers = options.headers ?? {};
  }
}

export function isWalletError(err: unknown): err is WalletError {
  return err instanceof WalletError;
}
