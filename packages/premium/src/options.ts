/** What the host chooses; the reference server maps PREMIUM_* and RELAY_* onto these. */
export interface PremiumOptions {
  /** PREMIUM_ENABLED (default off). Off: invoice and activate answer 400 `premium_off`; status still answers. */
  enabled?: boolean;
  /** PREMIUM_PLANS: `id:days:amount` entries separated by commas (`month:30:0.0001,year:365:0.001`), or the parsed list. */
  plans?: string | readonly PremiumPlan[];
  /** PREMIUM_CURRENCY: the processor currency of the plan amounts (default BTC). */
  currency?: string;
  /** RELAY_URL: the operator's relay (ws:// or wss://; wss in production). Premium needs it: premium is posting on this relay. */
  relayUrl?: string;
  /** RELAY_WRITE_POLICY: `premium-post` (the admission table of the spec) or `open`. Premium needs `premium-post`. */
  writePolicy?: string;
  /** PREMIUM_CONFIRMATIONS: confirmations before the processor reports an invoice Settled: 1, 2 or 6 (default 1; 0 is refused). */
  confirmations?: number;
  /** PREMIUM_INVOICE_EXPIRY_MINUTES: how long an invoice can be paid (5–1440, default 60). */
  invoiceExpiryMinutes?: number;
  /** PREMIUM_MAX_PENDING_INVOICES: unpaid, unexpired invoices a user may hold at once (1–100, default 5). */
  maxPendingInvoices?: number;
}

export interface PremiumPlan {
  id: string;
  days: number;
  /** A positive decimal in the premium currency, as the processor takes it. */
  amount: string;
}

/** The terms premium runs with once the options are sound. */
export interface PremiumTerms {
  plans: readonly PremiumPlan[];
  currency: string;
  relayUrl: string;
  confirmations: 1 | 2 | 6;
  invoiceExpiryMinutes: number;
  maxPendingInvoices: number;
}

export const WRITE_POLICIES = ['premium-post', 'open'] as const;
export const PREMIUM_DEFAULTS = { enabled: false, currency: 'BTC', writePolicy: 'open', confirmations: 1, invoiceExpiryMinutes: 60, maxPendingInvoices: 5 } as const;
/** Spec › Limits: at most 3660 days per plan. */
export const MAX_PLAN_DAYS = 3660;

const PLAN_ID = /^[a-z0-9][a-z0-9_-]{0,31}$/;
/** A positive decimal: digits, optionally a point and digits; at most 8 decimals (satoshi precision) and 15 integer digits. */
const DECIMAL = /^(0|[1-9][0-9]{0,14})(\.[0-9]{1,8})?$/;

/** Parses PREMIUM_PLANS, listing every problem (entry by entry) instead of stopping at the first. */
export function parsePlans(value: string | readonly PremiumPlan[]): { plans: PremiumPlan[]; problems: string[] } {
  const entries: Array<{ label: string; id: unknown; days: unknown; amount: unknown }> = [];
  const problems: string[] = [];
  if (typeof value === 'string') {
    const texts = value.split(',').map((text) => text.trim()).filter((text) => text !== '');
    for (const text of texts) {
      const parts = text.split(':');
      if (parts.length !== 3) {
        problems.push(`plans (PREMIUM_PLANS): "${text}" is not id:days:amount`);
        continue;
      }
      entries.push({ label: `"${text}"`, id: parts[0], days: /^[0-9]{1,9}$/.test(parts[1]!) ? Number(parts[1]) : parts[1], amount: parts[2] });
    }
  } else if (Array.isArray(value)) {
    value.forEach((plan: PremiumPlan, index) => entries.push({ label: `plan ${index + 1}`, id: plan?.id, days: plan?.days, amount: plan?.amount }));
  } else {
    return { plans: [], problems: ['plans (PREMIUM_PLANS) must be id:days:amount entries separated by commas'] };
  }
  const plans: PremiumPlan[] = [];
  const seen = new Set<string>();
  for (const entry of entries) {
    const before = problems.length;
    if (typeof entry.id !== 'string' || !PLAN_ID.test(entry.id)) problems.push(`plans (PREMIUM_PLANS): ${entry.label}: the id must be 1–32 of a-z, 0-9, "_" and "-", starting with a letter or digit`);
    else if (seen.has(entry.id)) problems.push(`plans (PREMIUM_PLANS): plan id "${entry.id}" is used twice`);
    if (typeof entry.days !== 'number' || !Number.isInteger(entry.days) || entry.days < 1 || entry.days > MAX_PLAN_DAYS) problems.push(`plans (PREMIUM_PLANS): ${entry.label}: days must be a whole number from 1 to ${MAX_PLAN_DAYS}`);
    if (typeof entry.amount !== 'string' || !DECIMAL.test(entry.amount) || !/[1-9]/.test(entry.amount)) problems.push(`plans (PREMIUM_PLANS): ${entry.label}: the amount must be a positive decimal (at most 8 decimals)`);
    if (typeof entry.id === 'string') seen.add(entry.id);
    if (problems.length === before) plans.push({ id: entry.id as string, days: entry.days as number, amount: entry.amount as string });
  }
  return { plans, problems };
}

function intProblem(name: string, env: string, value: unknown, min: number, max: number): string[] {
  if (value === undefined) return [];
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max ? [] : [`${name} (${env}) must be a whole number from ${min} to ${max}`];
}

/** What premium reads of core's settings; plugins see which secrets are set (the API key), never their values. */
interface CoreSettings {
  nodeEnv?: string;
  btcpayUrl?: string;
  btcpayStoreId?: string;
  configuredSecrets?: readonly string[];
}

/** Every problem with the options, given the core settings; fail closed: premium on must be able to take payment and to mean something on the relay (spec › General rule 3). */
export function premiumOptionProblems(options: PremiumOptions, settings: Readonly<CoreSettings>): string[] {
  const problems: string[] = [];
  const production = settings.nodeEnv === 'production';
  const { enabled } = options;
  if (enabled !== undefined && typeof enabled !== 'boolean') problems.push('enabled (PREMIUM_ENABLED) must be true or false');
  if (options.currency !== undefined && (typeof options.currency !== 'string' || !/^[A-Z]{3,5}$/.test(options.currency))) problems.push('currency (PREMIUM_CURRENCY) must be a currency code such as BTC, SATS or USD');
  if (options.writePolicy !== undefined && !(WRITE_POLICIES as readonly unknown[]).includes(options.writePolicy)) problems.push(`writePolicy (RELAY_WRITE_POLICY) must be one of ${WRITE_POLICIES.join(', ')}`);
  if (options.relayUrl !== undefined) {
    const ok = typeof options.relayUrl === 'string' && /^wss?:\/\/[^\s/?#]+[^\s]*$/.test(options.relayUrl);
    if (!ok) problems.push('relayUrl (RELAY_URL) must be a ws:// or wss:// URL');
    else if (production && !options.relayUrl.startsWith('wss://')) problems.push('relayUrl (RELAY_URL) must use wss in production');
  }
  if (options.confirmations !== undefined && options.confirmations !== 1 && options.confirmations !== 2 && options.confirmations !== 6) {
    problems.push('confirmations (PREMIUM_CONFIRMATIONS) must be 1, 2 or 6 (0-confirmation is refused)');
  }
  problems.push(...intProblem('invoiceExpiryMinutes', 'PREMIUM_INVOICE_EXPIRY_MINUTES', options.invoiceExpiryMinutes, 5, 1_440));
  problems.push(...intProblem('maxPendingInvoices', 'PREMIUM_MAX_PENDING_INVOICES', options.maxPendingInvoices, 1, 100));
  const parsed = options.plans === undefined ? { plans: [], problems: [] } : parsePlans(options.plans);
  problems.push(...parsed.problems);
  if (enabled === true) {
    if (options.relayUrl === undefined) problems.push('premium (PREMIUM_ENABLED) needs the relay on: set relayUrl (RELAY_URL)');
    if ((options.writePolicy ?? PREMIUM_DEFAULTS.writePolicy) !== 'premium-post') problems.push('premium (PREMIUM_ENABLED) needs the premium-post write policy (RELAY_WRITE_POLICY=premium-post)');
    const processor = [
      ['btcpayUrl', 'BTCPAY_URL', settings.btcpayUrl !== undefined],
      ['btcpayStoreId', 'BTCPAY_STORE_ID', settings.btcpayStoreId !== undefined],
      ['btcpayApiKey', 'BTCPAY_API_KEY', (settings.configuredSecrets ?? []).includes('btcpayApiKey')],
    ] as const;
    for (const [key, env, set] of processor) if (!set) problems.push(`premium (PREMIUM_ENABLED) needs the payment processor: ${key} (${env}) is missing`);
    if (parsed.plans.length === 0 && parsed.problems.length === 0) problems.push('premium (PREMIUM_ENABLED) needs at least one plan in plans (PREMIUM_PLANS)');
  }
  return problems;
}

/** The terms of sound options (call only after `premiumOptionProblems` found none). */
export function premiumTerms(options: PremiumOptions): PremiumTerms {
  return {
    plans: options.plans === undefined ? [] : parsePlans(options.plans).plans,
    currency: options.currency ?? PREMIUM_DEFAULTS.currency,
    relayUrl: options.relayUrl ?? '',
    confirmations: (options.confirmations ?? PREMIUM_DEFAULTS.confirmations) as 1 | 2 | 6,
    invoiceExpiryMinutes: options.invoiceExpiryMinutes ?? PREMIUM_DEFAULTS.invoiceExpiryMinutes,
    maxPendingInvoices: options.maxPendingInvoices ?? PREMIUM_DEFAULTS.maxPendingInvoices,
  };
}
