/** What the host chooses; the reference server maps FEATURE_GRIN_RELAY and GRIN_RELAY_* onto these. */
export interface GrinRelayOptions {
  /** FEATURE_GRIN_RELAY (default on). Off: no relay route is mounted (404 for everyone) and the expiry sweep does not run. */
  enabled?: boolean;
  /** GRIN_RELAY_EXPIRY_HOURS: how long an entry stays open (default 168, 1–2160). */
  expiryHours?: number;
  /** GRIN_RELAY_SWEEP_INTERVAL_SEC: how often open entries past expiry are closed (default 300, 10–86400). */
  sweepIntervalSec?: number;
}

export const RELAY_DEFAULTS = { enabled: true, expiryHours: 168, sweepIntervalSec: 300 } as const;

const wholeIn = (value: unknown, min: number, max: number) => Number.isInteger(value) && (value as number) >= min && (value as number) <= max;

/** Every problem with the options, for the plugin's `validateConfig`. */
export function relayOptionProblems(options: GrinRelayOptions): string[] {
  const problems: string[] = [];
  if (options.enabled !== undefined && typeof options.enabled !== 'boolean') problems.push('enabled (FEATURE_GRIN_RELAY) must be true or false');
  if (options.expiryHours !== undefined && !wholeIn(options.expiryHours, 1, 2_160)) problems.push('expiryHours (GRIN_RELAY_EXPIRY_HOURS) must be a whole number of hours from 1 to 2160');
  if (options.sweepIntervalSec !== undefined && !wholeIn(options.sweepIntervalSec, 10, 86_400)) problems.push('sweepIntervalSec (GRIN_RELAY_SWEEP_INTERVAL_SEC) must be a whole number of seconds from 10 to 86400');
  return problems;
}
