import { isViolationOf, uniqueViolationOf } from '../storage/index.js';
import { identityErrors } from './errors.js';

/** A unique key whose collision means "a concurrent request of the same wallet created this identity first". */
export interface IdentityKey {
  table: string;
  columns: readonly string[];
}

export const USERS_PUBKEY_HASH: IdentityKey = { table: 'users', columns: ['pubkey_hash'] };
export const USERS_NOSTR_PUBKEY: IdentityKey = { table: 'users', columns: ['nostr_pubkey'] };
/** The partial unique index on proven keys: another account proved the same key at the same moment. */
export const PROVEN_KEY: IdentityKey = { table: 'user_keys', columns: ['asset', 'key_type', 'public_key'] };

/**
 * Runs a login or registration transaction; when it loses a race on one of `raced` (two first
 * logins of one wallet both creating its account), runs it once more, and the second run finds
 * what the winner committed and logs into it. A second collision on those keys is 409
 * `identity_conflict`. A unique violation on any other index is not one this login can explain:
 * it propagates (the HTTP kit answers it as a conflict and logs the index).
 */
export async function retryIdentityRace<T>(attempt: () => Promise<T>, raced: readonly IdentityKey[]): Promise<T> {
  const isRaced = (err: unknown) => {
    const violation = uniqueViolationOf(err);
    return raced.some((key) => isViolationOf(violation, key.table, key.columns));
  };
  try {
    return await attempt();
  } catch (err) {
    if (!isRaced(err)) throw err;
  }
  try {
    return await attempt();
  } catch (err) {
    if (isRaced(err)) throw identityErrors.create.identity_conflict({ cause: err });
    throw err;
  }
}
