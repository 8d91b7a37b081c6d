import * as v from 'valibot';
import { RELAY_STATUS } from './entry.js';
import { isWellFormedSlatepack, MAX_SLATEPACK_BYTES } from './slatepack.js';

const U64_MAX = 18_446_744_073_709_551_615n;

const uuid = (what: string) => v.pipe(v.string(`${what} must be a string`), v.uuid(`${what} must be a UUID`));

const slatepack = v.pipe(
  v.string('must be a string'),
  v.check((text) => Buffer.byteLength(text, 'utf8') <= MAX_SLATEPACK_BYTES, `must be at most ${MAX_SLATEPACK_BYTES} bytes (64 KiB)`),
  v.check(isWellFormedSlatepack, 'must be an armored slatepack (BEGINSLATEPACK. … . ENDSLATEPACK.) with a valid checksum'),
);

/** A positive u64 as a JSON integer (up to 2^53 − 1) or a decimal string (the whole u64 range); answered as a string. */
const amountNanogrin = v.pipe(
  v.union([v.pipe(v.number(), v.safeInteger()), v.pipe(v.string(), v.regex(/^[1-9]\d{0,19}$/))], 'must be a positive whole number of nanogrin (a JSON integer or a decimal string)'),
  v.transform((value) => BigInt(value)),
  v.check((value) => value > 0n && value <= U64_MAX, 'must be between 1 and 18446744073709551615'),
  v.transform((value) => value.toString()),
);

export const createRequest = v.pipe(v.strictObject({
  recipient_user_id: uuid('recipient_user_id'),
  slate_id: uuid('slate_id'),
  slatepack,
  amount_nanogrin: amountNanogrin,
}), v.title('GrinRelayCreateRequest'));
export const slateIdRequest = v.pipe(v.strictObject({ slate_id: uuid('slate_id') }), v.title('GrinRelaySlateIdRequest'));
export const respondRequest = v.pipe(v.strictObject({ slate_id: uuid('slate_id'), response_slatepack: slatepack }), v.title('GrinRelayRespondRequest'));
export const finalizeRequest = v.pipe(v.strictObject({
  slate_id: uuid('slate_id'),
  tx_hash: v.pipe(v.string('must be a string'), v.regex(/^[0-9a-fA-F]{64}$/, 'must be the 64-hex transaction hash')),
}), v.title('GrinRelayFinalizeRequest'));

export const relayEntryResponse = v.pipe(v.object({
  slate_id: v.string(),
  sender_user_id: v.nullable(v.string()),
  recipient_user_id: v.nullable(v.string()),
  amount_nanogrin: v.string(),
  status: v.picklist(Object.values(RELAY_STATUS)),
  slatepack: v.string(),
  response_slatepack: v.nullable(v.string()),
  tx_hash: v.nullable(v.string()),
  created_at: v.string(),
  updated_at: v.string(),
  expires_at: v.string(),
}), v.title('GrinRelayEntry'));
export const pendingResponse = v.pipe(v.object({ relays: v.array(relayEntryResponse) }), v.title('GrinRelayPendingResponse'));
