import * as v from 'valibot';

export const lwsAsset = v.picklist(['xmr', 'wow'], 'must be xmr or wow');
const address = v.pipe(v.string('must be a string'), v.minLength(90, 'is too short for an address'), v.maxLength(110, 'is too long'));
const viewKey = v.pipe(v.string('must be a string'), v.regex(/^[0-9a-fA-F]{64}$/, 'must be the 64-hex private view key'));
const digits = v.pipe(v.string(), v.regex(/^\d{1,20}$/, 'must be a decimal amount string'));

export const viewRequest = v.pipe(v.strictObject({ asset: lwsAsset, address, view_key: viewKey }), v.title('LwsViewRequest'));
export const registerRequest = v.pipe(v.strictObject({ asset: lwsAsset, address, view_key: viewKey, start_height: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0, 'must be a block height'))) }), v.title('LwsRegisterRequest'));
export const lwsAssetRequest = v.pipe(v.strictObject({ asset: lwsAsset }), v.title('LwsAssetRequest'));
export const randomOutsRequest = v.pipe(v.strictObject({
  asset: lwsAsset,
  count: v.pipe(v.number(), v.integer(), v.minValue(1, 'must be at least 1'), v.maxValue(32, 'must be at most 32')),
  amounts: v.optional(v.pipe(v.array(digits), v.minLength(1, 'must not be empty'), v.maxLength(16, 'has too many amounts')), ['0']),
}), v.title('LwsRandomOutsRequest'));
export const submitRequest = v.pipe(v.strictObject({ asset: lwsAsset, tx: v.pipe(v.string(), v.regex(/^(?:[0-9a-fA-F]{2}){100,500000}$/, 'must be a signed transaction in hex')) }), v.title('LwsSubmitRequest'));
export const confirmationsRequest = v.pipe(v.strictObject({ asset: lwsAsset, txid: v.pipe(v.string(), v.regex(/^[0-9a-fA-F]{64}$/, 'must be a 64-hex transaction id')) }), v.title('LwsConfirmationsRequest'));

export const okResponse = v.pipe(v.object({ ok: v.literal(true) }), v.title('OkResponse'));
export const lwsBalanceResponse = v.pipe(v.object({
  asset: lwsAsset,
  total_received: v.string(),
  total_sent: v.string(),
  locked_funds: v.string(),
  balance: v.string(),
  scanned_height: v.number(),
  scanned_block_height: v.number(),
  blockchain_height: v.number(),
  start_height: v.number(),
}), v.title('LwsBalanceResponse'));
const lwsTx = v.object({ id: v.number(), hash: v.string(), total_received: v.string(), total_sent: v.string(), height: v.nullable(v.number()), mempool: v.boolean() });
export const lwsHistoryResponse = v.pipe(v.object({ asset: lwsAsset, scanned_height: v.number(), blockchain_height: v.number(), confirmed: v.array(lwsTx), mempool: v.array(lwsTx) }), v.title('LwsHistoryResponse'));
export const unspentOutsResponse = v.pipe(v.object({ asset: lwsAsset, amount: v.string(), per_byte_fee: v.string(), fee_mask: v.string(), fees: v.array(v.string()), outputs: v.array(v.record(v.string(), v.unknown())) }), v.title('LwsUnspentOutsResponse'));
export const randomOutsResponse = v.pipe(v.object({ asset: lwsAsset, amount_outs: v.array(v.object({ amount: v.string(), outputs: v.array(v.record(v.string(), v.unknown())) })) }), v.title('LwsRandomOutsResponse'));
export const heightResponse = v.pipe(v.object({ asset: lwsAsset, height: v.number() }), v.title('LwsHeightResponse'));
export const confirmationsResponse = v.pipe(v.object({ asset: lwsAsset, txid: v.string(), found: v.boolean(), in_pool: v.boolean(), block_height: v.nullable(v.number()), confirmations: v.number() }), v.title('LwsConfirmationsResponse'));
