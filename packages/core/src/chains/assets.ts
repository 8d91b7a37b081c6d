/** The assets the wallet knows (spec › Per-asset key). */
export const ASSETS = ['btc', 'ltc', 'xmr', 'wow', 'grin'] as const;
export type Asset = (typeof ASSETS)[number];

export function isAsset(value: unknown): value is Asset {
  return typeof value === 'string' && (ASSETS as readonly string[]).includes(value);
}
