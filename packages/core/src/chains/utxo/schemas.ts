import * as v from 'valibot';

export const utxoAsset = v.picklist(['btc', 'ltc'], 'must be btc or ltc');
const address = v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty'), v.maxLength(100, 'is too long'));

export const assetRequest = v.pipe(v.strictObject({ asset: utxoAsset }), v.title('UtxoAssetRequest'));
export const addressRequest = v.pipe(v.strictObject({ asset: utxoAsset, address }), v.title('UtxoAddressRequest'));
export const feeRequest = v.pipe(v.strictObject({ asset: utxoAsset, blocks: v.pipe(v.number('must be a number'), v.integer('must be whole blocks'), v.minValue(1, 'must be at least 1'), v.maxValue(1008, 'must be at most 1008')) }), v.title('UtxoFeeRequest'));
export const broadcastRequest = v.pipe(v.strictObject({ asset: utxoAsset, tx_hex: v.pipe(v.string('must be a string'), v.minLength(1, 'must not be empty'), v.maxLength(2_000_000, 'is too long')) }), v.title('UtxoBroadcastRequest'));

export const balanceResponse = v.pipe(v.object({ asset: utxoAsset, address: v.string(), confirmed: v.number(), unconfirmed: v.number() }), v.title('UtxoBalanceResponse'));
export const historyResponse = v.pipe(v.object({
  asset: utxoAsset,
  address: v.string(),
  confirmed: v.array(v.object({ txid: v.string(), height: v.number() })),
  mempool: v.array(v.object({ txid: v.string() })),
}), v.title('UtxoHistoryResponse'));
export const utxosResponse = v.pipe(v.object({
  asset: utxoAsset,
  address: v.string(),
  utxos: v.array(v.object({ txid: v.string(), vout: v.number(), value: v.number(), height: v.nullable(v.number()) })),
}), v.title('UtxoListResponse'));
export const feeResponse = v.pipe(v.object({ asset: utxoAsset, blocks: v.number(), sat_per_vbyte: v.number() }), v.title('UtxoFeeResponse'));
export const tipResponse = v.pipe(v.object({ asset: utxoAsset, height: v.number() }), v.title('UtxoTipResponse'));
export const broadcastResponse = v.pipe(v.object({ asset: utxoAsset, txid: v.string() }), v.title('UtxoBroadcastResponse'));
