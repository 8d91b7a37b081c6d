import { ASSETS, type Asset } from './assets.js';

/** Anything that can tell a chain's tip height: the chain adapters provide one each. */
export interface HeightSource {
  tipHeight(signal?: AbortSignal): Promise<number>;
}

export type Heights = Record<Asset, number | null>;

/** Resolves with the source's answer, or null on failure or when `timeoutMs` passes first. */
async function boundedHeight(source: HeightSource, timeoutMs: number): Promise<number | null> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve(null);
    }, timeoutMs);
  });
  try {
    const answer = source.tipHeight(controller.signal).then(
      (height) => (Number.isSafeInteger(height) && height >= 0 ? height : null),
      () => null,
    );
    return await Promise.race([answer, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The enabled chains and their tip heights. A chain is enabled when something provides its
 * height; the chain-access features register their adapters here.
 */
export class ChainRegistry {
  private readonly sources = new Map<Asset, HeightSource>();

  provideHeight(asset: Asset, source: HeightSource): void {
    if (this.sources.has(asset)) throw new Error(`a height source for ${asset} is already registered`);
    this.sources.set(asset, source);
  }

  /** Enabled chains, in the spec's asset order. */
  get enabled(): Asset[] {
    return ASSETS.filter((asset) => this.sources.has(asset));
  }

  /**
   * Every asset's tip height: null when the chain is disabled, failing or slower than
   * `timeoutMs`. All chains are asked at once, so one slow chain delays no other.
   */
  async heights(timeoutMs: number): Promise<Heights> {
    const entries = await Promise.all(
      ASSETS.map(async (asset): Promise<[Asset, number | null]> => {
        const source = this.sources.get(asset);
        return [asset, source ? await boundedHeight(source, timeoutMs) : null];
      }),
    );
    return Object.fromEntries(entries) as Heights;
  }
}
