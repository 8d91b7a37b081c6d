export { WalletError, isWalletError, type ErrorDetail, type WalletErrorOptions } from './wallet-error.js';
export { defineErrors, type ErrorSpec, type ErrorCatalogue, type ErrorFactories } from './define-errors.js';
export { coreErrors } from './codes.js';
export { UpstreamFailure, upstreamFailureOf } from './upstream-failure.js';
export { BootError } from './boot-error.js';
