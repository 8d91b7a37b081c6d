import type { Knex } from 'knex';
import { coreErrors, type WalletError } from '../errors/index.js';
import { appliedMigrations } from '../storage/index.js';

/** How long the whole readiness check may take before it answers 503 (probes time out at 1-5 s). */
export const READINESS_TIMEOUT_MS = 2_000;

export type ReadinessCheck = 'database' | 'migrations';

/** Why the backend is not ready: the failed check and a message safe to show (no driver text, no host names). */
export interface NotReady {
  check: ReadinessCheck;
  message: string;
  cause?: unknown;
}

/**
 * The readiness verdict: the database answers `select 1`, then every expected ledger id
 * (`<owner>/<id>`, core's and every plugin's) is in the ledger. The whole check is bounded by
 * `timeoutMs`, so an unreachable database (a pool waiting for a connection, a host that drops
 * packets) answers "not ready" in time instead of hanging the probe.
 */
export async function checkReadiness(knex: Knex, expected: readonly string[], timeoutMs = READINESS_TIMEOUT_MS): Promise<NotReady | null> {
  const work = (async (): Promise<NotReady | null> => {
    await knex.raw('select 1');
    const applied = new Set(await appliedMigrations(knex));
    const pending = expected.filter((id) => !applied.has(id));
    if (pending.length === 0) return null;
    return { check: 'migrations', message: `${pending.length} of ${expected.length} migrations pending; run the migrations` };
  })();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<NotReady>((resolve) => {
    timer = setTimeout(() => resolve({ check: 'database', message: `no answer from the database within ${timeoutMs} ms` }), timeoutMs);
    timer.unref();
  });
  // A query left behind by the timeout settles later; its rejection must not go unhandled.
  work.catch(() => {});
  try {
    return await Promise.race([
      work.catch((err: unknown): NotReady => ({ check: 'database', message: 'the database query failed', cause: err })),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** The 503 `not_ready` answer; `details` names the failed check. */
export function notReadyError(verdict: NotReady): WalletError {
  return coreErrors.create.not_ready({
    details: [{ path: verdict.check, message: verdict.message }],
    ...(verdict.cause === undefined ? {} : { cause: verdict.cause }),
  });
}
