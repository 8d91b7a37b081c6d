import { ASSETS, type Asset } from './assets.js';
import type { ChainAccess, CryptonoteChainReader, GrinChainReader, Heights, HeightSource, UtxoChainReader } from './readers.js';

export type { Heights, HeightSource };

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
export class ChainRegistry implements ChainAccess {
  private readonly sources = new Map<Asset, HeightSource>();
  private readonly utxoReaders = new Map<'btc' | 'ltc', UtxoChainReader>();
  private grinReader: GrinChainReader | null = null;
  private readonly cryptonoteReaders = new Map<'xmr' | 'wow', CryptonoteChainReader>();

  provideCryptonoteReader(asset: 'xmr' | 'wow', reader: CryptonoteChainReader): void {
    this.cryptonoteReaders.set(asset, reader);
  }

  cryptonote(asset: 'xmr' | 'wow'): CryptonoteChainReader | null {
    return this.cryptonoteReaders.get(asset) ?? null;
  }

  provideUtxoReader(asset: 'btc' | 'ltc', reader: UtxoChainReader): void {
    this.utxoReaders.set(asset, reader);
  }

  provideGrinReader(reader: GrinChainReader): void {
    this.grinReader = reader;
  }

  utxo(asset: 'btc' | 'ltc'): UtxoChainReader | null {
    return this.utxoReaders.get(asset) ?? null;
  }

  grin(): GrinChainReader | null {
    return this.grinReader;
  }

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
