import type { TipAsset } from './tip.js';

/** What the host chooses; the reference server maps FEATURE_TIPS, FEATURE_TARGETED_TIPS and TIP_* onto these. */
export interface TipsOptions {
  /** FEATURE_TIPS (default off). Off: every `/tips/social` route answers 400 `tips_off` and no worker runs. */
  enabled?: boolean;
  /** FEATURE_TARGETED_TIPS (default off): tips addressed to a username. Needs tips on. */
  targeted?: boolean;
  /** TIP_SHARE_BASE: the share URL is this text followed by the tip id (e.g. `https://wallet.example/tip/`); https in production. */
  shareBase?: string;
  /**
   * TIP_MAX_UNCONFIRMED_PER_SENDER: how many of one sender's tips may wait for their funding to confirm (`pending_confirmation`)
   * at once (default 25, 1 to 1000). Creating a tip costs no chain call, so without a cap one
   * account could fill the funding worker's reads; past it, create and attach-funding answer
   * 409 `tip_unconfirmed_limit` until one confirms, is cancelled or is clawed back.
   */
  maxUnconfirmedPerSender?: number;
}

export const TIPS_DEFAULTS = { enabled: false, targeted: false, maxUnconfirmedPerSender: 25 } as const;
export const MAX_UNCONFIRMED_BOUNDS = { min: 1, max: 1000 } as const;

/** Draft and unconfirmed tips are cancelled after this long (spec › Limits). */
export const STALE_TIP_MS = 7 * 24 * 3_600_000;
/** A tip in `claiming` longer than this is logged by the stuck-claiming task. */
export const STUCK_CLAIMING_MS = 15 * 60_000;

/** Confirmations a funding or sweep needs before it counts, per asset (grin: the spec's 10). */
export const CONFIRMATIONS: Readonly<Record<TipAsset, number>> = { btc: 2, ltc: 6, xmr: 10, wow: 10, grin: 10 };

/** Amount bounds in atomic units: BTC/LTC at least 1000 sat (above every dust limit, so a tip can be swept), at most the asset's supply; the rest up to u64. */
export const AMOUNT_BOUNDS: Readonly<Record<TipAsset, { min: bigint; max: bigint }>> = {
  btc: { min: 1_000n, max: 2_100_000_000_000_000n },
  ltc: { min: 1_000n, max: 8_400_000_000_000_000n },
  xmr: { min: 1n, max: 18_446_744_073_709_551_615n },
  wow: { min: 1n, max: 18_446_744_073_709_551_615n },
  grin: { min: 1n, max: 18_446_744_073_709_551_615n },
};

interface ChainSettings {
  nodeEnv?: string;
  btcEsploraUrl?: string;
  btcElectrumUrl?: string;
  ltcEsploraUrl?: string;
  ltcElectrumUrl?: string;
  xmrLwsUrl?: string;
  xmrDaemonUrl?: string;
  wowLwsUrl?: string;
  wowDaemonUrl?: string;
}

/** The address chains whose access is configured: tips need at least one (spec › General rule 3). */
function addressChainsOn(settings: Readonly<ChainSettings>): TipAsset[] {
  const on: TipAsset[] = [];
  if (settings.btcEsploraUrl !== undefined || settings.btcElectrumUrl !== undefined) on.push('btc');
  if (settings.ltcEsploraUrl !== undefined || settings.ltcElectrumUrl !== undefined) on.push('ltc');
  if (settings.xmrLwsUrl !== undefined && settings.xmrDaemonUrl !== undefined) on.push('xmr');
  if (settings.wowLwsUrl !== undefined && settings.wowDaemonUrl !== undefined) on.push('wow');
  return on;
}

function shareBaseProblems(shareBase: unknown, production: boolean): string[] {
  if (typeof shareBase !== 'string' || shareBase === '') return ['shareBase (TIP_SHARE_BASE) is required when tips are on'];
  let url: URL;
  try {
    url = new URL(shareBase);
  } catch {
    return ['shareBase (TIP_SHARE_BASE) must be an absolute URL'];
  }
  const problems: string[] = [];
  if (url.protocol !== 'https:' && (production || url.protocol !== 'http:')) problems.push(`shareBase (TIP_SHARE_BASE) must use https${production ? ' in production' : ' (or http outside production)'}`);
  if (shareBase.includes('#')) problems.push('shareBase (TIP_SHARE_BASE) must not carry a fragment: the wallet appends the tip secret as the fragment');
  return problems;
}

/** Every problem with the options, given the core settings (fail closed: tips on must be serveable). */
export function tipsOptionProblems(options: TipsOptions, settings: Readonly<ChainSettings>): string[] {
  const problems: string[] = [];
  const { enabled, targeted } = options;
  if (enabled !== undefined && typeof enabled !== 'boolean') problems.push('enabled (FEATURE_TIPS) must be true or false');
  if (targeted !== undefined && typeof targeted !== 'boolean') problems.push('targeted (FEATURE_TARGETED_TIPS) must be true or false');
  const cap = options.maxUnconfirmedPerSender;
  if (cap !== undefined && (typeof cap !== 'number' || !Number.isInteger(cap) || cap < MAX_UNCONFIRMED_BOUNDS.min || cap > MAX_UNCONFIRMED_BOUNDS.max)) {
    problems.push(`maxUnconfirmedPerSender (TIP_MAX_UNCONFIRMED_PER_SENDER) must be a whole number from ${MAX_UNCONFIRMED_BOUNDS.min} to ${MAX_UNCONFIRMED_BOUNDS.max}`);
  }
  if (targeted === true && enabled !== true) problems.push('targeted (FEATURE_TARGETED_TIPS) needs tips on (FEATURE_TIPS)');
  if (enabled === true) {
    if (addressChainsOn(settings).length === 0) problems.push('tips (FEATURE_TIPS) need at least one of btc, ltc, xmr or wow chain access configured');
    problems.push(...shareBaseProblems(options.shareBase, settings.nodeEnv === 'production'));
  }
  return problems;
}
