import { WalletError, type WalletErrorOptions } from './wallet-error.js';

export interface ErrorSpec {
  status: number;
  message: string;
}

export type ErrorFactories<T extends Record<string, ErrorSpec>> = {
  readonly [K in keyof T]: (options?: WalletErrorOptions) => WalletError;
};

export interface ErrorCatalogue<T extends Record<string, ErrorSpec>> {
  /** The declared codes with their status and default message; `docs/errors.md` is tested against it. */
  readonly specs: Readonly<T>;
  /** One factory per code: `errors.not_found()` builds the WalletError. */
  readonly create: ErrorFactories<T>;
}

const SNAKE_CASE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;

/**
 * Declares a package's error codes once, with their status and default message.
 * Codes are snake_case nouns plus a condition (`invite_expired`); a malformed code or a status
 * outside 4xx/5xx is a programming error and throws at import time.
 *
 * @example
 * const errors = defineErrors({ tip_not_found: { status: 404, message: 'Tip not found.' } });
 * throw errors.create.tip_not_found();
 */
export function defineErrors<const T extends Record<string, ErrorSpec>>(specs: T): ErrorCatalogue<T> {
  const create = {} as Record<string, (options?: WalletErrorOptions) => WalletError>;
  for (const [code, spec] of Object.entries(specs)) {
    if (!SNAKE_CASE.test(code)) throw new Error(`error code "${code}" is not snake_case`);
    if (!Number.isInteger(spec.status) || spec.status < 400 || spec.status > 599) {
      throw new Error(`error code "${code}" has status ${spec.status}, not a 4xx or 5xx`);
    }
    create[code] = (options = {}) =>
      new WalletError(code, spec.status, options.message ?? spec.message, options);
  }
  return Object.freeze({ specs: Object.freeze({ ...specs }), create: Object.freeze(create) as ErrorFactories<T> });
}
