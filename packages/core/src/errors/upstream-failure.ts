import { isWalletError } from './wallet-error.js';

/**
 * Why an upstream call failed, kept as the `cause` of the 503 the client sees. The wallet's
 * answer stays one code per upstream; the operator's log line and the failure metric carry the
 * reason, because a wrong key and an outage need different hands. It never holds a credential
 * or an upstream's free-text message, only its status and its machine-readable error code.
 */
export class UpstreamFailure extends Error {
  constructor(
    /** The upstream's metric label, e.g. `btcpay`. */
    readonly upstream: string,
    /** A closed set per upstream, e.g. `unauthorized`, `timeout`: a metric label, so never free text. */
    readonly reason: string,
    readonly detail: { status?: number; upstreamCode?: string } = {},
  ) {
    super(`${upstream}: ${reason}${detail.status === undefined ? '' : ` (HTTP ${detail.status})`}`);
    this.name = 'UpstreamFailure';
  }
}

/** The upstream failure an error carries as its cause (a client's 503), or null: what the log line and the metric label read. */
export function upstreamFailureOf(err: unknown): UpstreamFailure | null {
  return isWalletError(err) && err.cause instanceof UpstreamFailure ? err.cause : null;
}
