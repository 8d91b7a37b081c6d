/**
 * A deterministic stream of 256-bit numbers (a linear congruential step mixed by a shift), for
 * tests that compare an arithmetic routine with an independent answer over many inputs: the
 * same seed gives the same inputs, so a failure names a reproducible value.
 */
export function bigStream(seed: bigint): () => bigint {
  let state = seed;
  return () => {
    state = (state * 0x5851f42d4c957f2d4c957f2d4c957f2dn + 0x14057b7ef767814fn) % 2n ** 256n;
    return state ^ (state >> 101n);
  };
}
