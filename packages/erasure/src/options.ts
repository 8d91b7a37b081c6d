/** What the host chooses; the reference server maps FEATURE_ERASURE and ERASURE_* onto these. */
export interface ErasureOptions {
  /** FEATURE_ERASURE (default off). Off: every erasure and export route answers 400 `erasure_off`; the sweeper does not run. */
  enabled?: boolean;
  /** ERASURE_GRACE_PERIOD_HOURS: from confirmation to execution; cancel is allowed within it (1–720, default 72). */
  gracePeriodHours?: number;
  /** ERASURE_LOGIN_EVENTS: `purge` (default) deletes the user's login events; `anonymize` keeps them without the user link and fingerprint. */
  loginEvents?: 'purge' | 'anonymize';
}

export const ERASURE_DEFAULTS = { enabled: false, gracePeriodHours: 72, loginEvents: 'purge' } as const;
/** A request not confirmed within this long expires. */
export const CONFIRM_WINDOW_MS = 24 * 3_600_000;
/** The sweeper's interval. */
export const SWEEP_INTERVAL_MS = 60_000;
/** Due requests erased per sweep (one transaction each). */
export const SWEEP_BATCH = 20;

/** What erasure reads of core's settings; plugins see which secrets are set, never their values. */
interface CoreSettings {
  publicApiUrl?: string;
  configuredSecrets?: readonly string[];
}

/** Every problem with the options; fail closed (spec › General rule 3: erasure requires the integrity secret and PUBLIC_API_URL). */
export function erasureOptionProblems(options: ErasureOptions, settings: Readonly<CoreSettings>): string[] {
  const problems: string[] = [];
  if (options.enabled !== undefined && typeof options.enabled !== 'boolean') problems.push('enabled (FEATURE_ERASURE) must be true or false');
  const grace = options.gracePeriodHours;
  if (grace !== undefined && (typeof grace !== 'number' || !Number.isInteger(grace) || grace < 1 || grace > 720)) problems.push('gracePeriodHours (ERASURE_GRACE_PERIOD_HOURS) must be a whole number of hours from 1 to 720');
  if (options.loginEvents !== undefined && options.loginEvents !== 'purge' && options.loginEvents !== 'anonymize') problems.push('loginEvents (ERASURE_LOGIN_EVENTS) must be purge or anonymize');
  if (options.enabled === true) {
    if (!(settings.configuredSecrets ?? []).includes('adminKeyIntegritySecret')) problems.push('erasure (FEATURE_ERASURE) needs ADMIN_KEY_INTEGRITY_SECRET (the audit chain it appends to and scrubs)');
    if (settings.publicApiUrl === undefined) problems.push('erasure (FEATURE_ERASURE) needs PUBLIC_API_URL (the signed proofs are bound to it)');
  }
  return problems;
}
