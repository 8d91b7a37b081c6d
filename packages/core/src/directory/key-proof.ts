import * as v from 'valibot';
import { submittedKey } from './schemas.js';

/**
 * The text a key signs to prove its owner holds it (docs/wallet-integration.md, "Key proofs"),
 * in the asset's own message scheme. Lines joined with "\n", no trailing newline. It names the
 * deployment and the account, so a proof made for one account is useless for any other.
 * `public_key` is the value exactly as the request carries it.
 */
export function keyRegistrationMessage(input: { service: string; userId: string; asset: string; publicKey: string }): string {
  return ['Wallet Backend key registration', `service: ${input.service}`, `user: ${input.userId}`, `asset: ${input.asset}`, `public_key: ${input.publicKey}`].join('\n');
}

/** POST /keys: a submitted key plus, optionally, the key's own signature of `keyRegistrationMessage`. */
export const registerKeyRequest = v.pipe(v.strictObject({
  ...submittedKey.entries,
  signature: v.optional(v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty'), v.maxLength(300, 'is too long'))),
}), v.title('RegisterKeyRequest'));
export type RegisterKeyRequest = v.InferOutput<typeof registerKeyRequest>;
