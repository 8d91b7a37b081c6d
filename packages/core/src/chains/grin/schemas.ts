import * as v from 'valibot';

const hex = (length: number, what: string) => v.pipe(v.string(), v.regex(new RegExp(`^[0-9a-fA-F]{${length}}$`), `must be ${what}`));
const commitment = hex(66, 'a 33-byte commitment in hex');

export const grinHeightResponse = v.pipe(v.object({ height: v.number() }), v.title('GrinHeightResponse'));

export const grinScanRequest = v.pipe(v.strictObject({
  rewind_hash: hex(64, 'the 64-hex rewind hash'),
  /** Output PMMR index to start from (1 = the beginning of the chain). */
  start_index: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1, 'must be at least 1')), 1),
  max: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1, 'must be at least 1'))),
}), v.title('GrinScanRequest'));

export const grinScanResponse = v.pipe(v.object({
  outputs: v.array(
    v.object({
      commit: v.string(),
      value: v.string(),
      height: v.number(),
      mmr_index: v.number(),
      is_coinbase: v.boolean(),
      lock_height: v.number(),
    }),
  ),
  /** Nanogrin, as a decimal string (u64 does not fit a JSON number). */
  balance: v.string(),
  next_index: v.number(),
  highest_index: v.number(),
  complete: v.boolean(),
}), v.title('GrinScanResponse'));

const feature = v.union([v.string(), v.record(v.string(), v.unknown())]);

/** A finalized transaction as the node's `push_transaction` takes it: shape checked, content left to the node. */
export const grinTransaction = v.strictObject({
  offset: hex(64, 'the 32-byte kernel offset in hex'),
  body: v.strictObject({
    inputs: v.pipe(v.array(v.union([commitment, v.object({ features: v.optional(feature), commit: commitment })])), v.maxLength(1_000, 'has too many inputs')),
    outputs: v.pipe(
      v.array(v.object({ features: feature, commit: commitment, proof: v.pipe(v.string(), v.regex(/^(?:[0-9a-fA-F]{2}){193,1319}$/, 'must be a range proof in hex')) })),
      v.maxLength(1_000, 'has too many outputs'),
    ),
    kernels: v.pipe(
      v.array(v.object({ features: feature, excess: commitment, excess_sig: hex(128, 'a 64-byte signature in hex') })),
      v.minLength(1, 'needs at least one kernel'),
      v.maxLength(100, 'has too many kernels'),
    ),
  }),
});

export const grinBroadcastRequest = v.pipe(v.strictObject({
  tx: grinTransaction,
  /** Skip Dandelion stem phase. */
  fluff: v.optional(v.boolean(), false),
}), v.title('GrinBroadcastRequest'));

export const grinBroadcastResponse = v.pipe(v.object({ ok: v.literal(true) }), v.title('OkResponse'));
