import { UpstreamFailure } from '../errors/index.js';
import { processorErrors } from './errors.js';

/** BTCPay invoice statuses; only `Settled` grants anything, and anything unknown is unpaid. */
export type InvoiceStatus = 'New' | 'Processing' | 'Settled' | 'Expired' | 'Invalid' | (string & {});

export interface ProcessorInvoice {
  id: string;
  status: InvoiceStatus;
  /** The invoice's price; BTCPay answers "0" for a top-up invoice (created without an amount). */
  amount: string;
  /** What the buyer actually paid so far, in the invoice currency ("" when BTCPay does not say). */
  paidAmount: string;
  currency: string;
  checkoutLink: string;
  /** Unix seconds. */
  expirationTime: number;
  metadata: Record<string, unknown>;
}

export interface CreateInvoiceInput {
  amount: string;
  currency: string;
  metadata: Record<string, string>;
  expirationMinutes: number;
  /** Confirmations before Settled: 1, 2 or 6 (BTCPay speed policies). */
  confirmations: 1 | 2 | 6;
}

export interface GreenfieldOptions {
  url: string;
  storeId: string;
  apiKey: string;
  timeoutMs: number;
}

/**
 * Why a call to BTCPay failed (the `reason` of the log line and of
 * `wallet_upstream_failures_total`; a closed set): `unauthorized` 401, the key is unknown or
 * revoked; `forbidden` 403, the key lacks a permission or is not for this store;
 * `store_not_found` 404 `store-not-found`; `not_found`, any other 404 (BTCPAY_URL's path does
 * not lead to the Greenfield API, e.g. a proxy's page for unknown paths); `rate_limited` 429;
 * `upstream_error` 5xx (BTCPay, or a proxy in front of it, is failing or down); `timeout`;
 * `unreachable` (connection refused, DNS, TLS, a redirect); `bad_answer`, any other status or a
 * body that is not what Greenfield documents.
 */
export type ProcessorFailureReason =
  | 'unauthorized'
  | 'forbidden'
  | 'store_not_found'
  | 'not_found'
  | 'rate_limited'
  | 'upstream_error'
  | 'timeout'
  | 'unreachable'
  | 'bad_answer';

/** Greenfield's error code for an invoice that does not exist or belongs to another store (`GreenfieldInvoiceController.InvoiceNotFound`). */
const INVOICE_NOT_FOUND = 'invoice-not-found';

/** What `check()` found: one line per problem, naming the setting to fix. */
export interface ProcessorCheck {
  ok: boolean;
  /** The store's name when the key may read it. */
  storeName?: string;
  problems: string[];
}

/** The permissions invoices need, and every BTCPay permission that includes each (BTCPay's policy tree). */
const NEEDED_PERMISSIONS = {
  'btcpay.store.cancreateinvoice': ['btcpay.store.cancreateinvoice', 'btcpay.store.canmodifyinvoices', 'btcpay.store.canmodifystoresettings'],
  'btcpay.store.canviewinvoices': ['btcpay.store.canviewinvoices', 'btcpay.store.canmodifyinvoices', 'btcpay.store.canviewstoresettings', 'btcpay.store.canmodifystoresettings'],
} as const;

/**
 * The needed permissions a key's list does not grant for `storeId`. A store permission counts
 * unscoped (every store of the user) or scoped to exactly this store (`policy:storeId`);
 * `unrestricted` grants everything. Policies compare without case, store ids with it, as BTCPay does.
 */
export function missingInvoicePermissions(permissions: readonly string[], storeId: string): string[] {
  const granted = new Set<string>();
  for (const entry of permissions) {
    const separator = entry.indexOf(':');
    const policy = (separator === -1 ? entry : entry.slice(0, separator)).trim().toLowerCase();
    const scope = separator === -1 ? null : entry.slice(separator + 1);
    if (scope === null || scope === storeId) granted.add(policy);
  }
  if (granted.has('unrestricted')) return [];
  return Object.entries(NEEDED_PERMISSIONS)
    .filter(([, grantedBy]) => !grantedBy.some((policy) => granted.has(policy)))
    .map(([needed]) => needed);
}

const SPEED_POLICY = { 1: 'MediumSpeed', 2: 'LowMediumSpeed', 6: 'LowSpeed' } as const;

const decimal = (value: unknown): string => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '');

function asInvoice(value: unknown): ProcessorInvoice | null {
  const v = value as Record<string, unknown> | null;
  if (typeof v !== 'object' || v === null) return null;
  if (typeof v.id !== 'string' || typeof v.status !== 'string') return null;
  return {
    id: v.id,
    status: v.status,
    amount: decimal(v.amount),
    paidAmount: decimal(v.paidAmount),
    currency: typeof v.currency === 'string' ? v.currency : '',
    checkoutLink: typeof v.checkoutLink === 'string' ? v.checkoutLink : '',
    expirationTime: typeof v.expirationTime === 'number' ? v.expirationTime : 0,
    metadata: typeof v.metadata === 'object' && v.metadata !== null ? (v.metadata as Record<string, unknown>) : {},
  };
}

/** Greenfield's `{code, message}` error body: only the code is kept (the message is BTCPay's free text). */
function errorCodeOf(body: unknown): string | undefined {
  const code = (body as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[a-z0-9-]{1,64}$/.test(code) ? code : undefined;
}

interface Answer {
  status: number;
  body: unknown;
}

/**
 * The BTCPay Server Greenfield API, pull model: the processor's authenticated API is the
 * source of truth and no webhook is trusted. Every failure is 503 `processor_unavailable` to
 * the wallet, whose user can do nothing about it; its cause (an UpstreamFailure) tells the
 * operator which failure it was. The API key never appears in errors or logs.
 * @see https://docs.btcpayserver.org/API/Greenfield/v1/
 */
export class GreenfieldClient {
  private readonly root: string;
  private readonly store: string;
  private readonly base: string;

  constructor(private readonly options: GreenfieldOptions) {
    this.root = `${options.url.replace(/\/+$/, '')}/api/v1`;
    this.store = `${this.root}/stores/${encodeURIComponent(options.storeId)}`;
    this.base = `${this.store}/invoices`;
  }

  async createInvoice(input: CreateInvoiceInput): Promise<ProcessorInvoice> {
    const response = await this.call('POST', this.base, {
      amount: input.amount,
      currency: input.currency,
      metadata: input.metadata,
      checkout: { speedPolicy: SPEED_POLICY[input.confirmations], expirationMinutes: input.expirationMinutes },
    });
    if (response.status !== 200) throw failed(classify(response), response);
    const invoice = asInvoice(response.body);
    if (invoice === null) throw failed('bad_answer', response);
    return invoice;
  }

  /**
   * The invoice, or null only when BTCPay says it does not know it (404 `invoice-not-found`).
   * Any other 404 (an unknown store, or a URL that does not reach Greenfield) is a failure: a
   * wrong BTCPAY_URL must answer 503, never "no such invoice".
   */
  async getInvoice(invoiceId: string): Promise<ProcessorInvoice | null> {
    const response = await this.call('GET', `${this.base}/${encodeURIComponent(invoiceId)}`);
    if (response.status === 404 && errorCodeOf(response.body) === INVOICE_NOT_FOUND) return null;
    if (response.status !== 200) throw failed(classify(response), response);
    const invoice = asInvoice(response.body);
    if (invoice === null || invoice.id !== invoiceId) throw failed('bad_answer', response);
    return invoice;
  }

  /**
   * Asks BTCPay whether this URL, key and store can create and read invoices: the key's own
   * permissions (`GET /api-keys/current`), then the store (`GET /stores/{storeId}`, or its
   * invoice list when the key may not read the store's settings, which invoices do not need).
   * Never throws; every line names the setting to fix and none holds the key.
   */
  async check(): Promise<ProcessorCheck> {
    const problems: string[] = [];
    const key = await this.probe('GET', `${this.root}/api-keys/current`);
    if ('failure' in key) return { ok: false, problems: [reach(key.failure, this.options)] };
    if (key.status === 401) return { ok: false, problems: ['BTCPAY_API_KEY: BTCPay refused the key (401): it is mistyped, revoked or from another BTCPay Server'] };
    const keyFailing = failingLine(key.status, 'GET /api/v1/api-keys/current', this.options);
    if (keyFailing !== undefined) return { ok: false, problems: [keyFailing] };
    const permissions = (key.body as { permissions?: unknown } | null)?.permissions;
    if (key.status !== 200 || !Array.isArray(permissions) || !permissions.every((p) => typeof p === 'string')) {
      return { ok: false, problems: [`BTCPAY_URL: ${originOf(this.options.url)} did not answer like a BTCPay Greenfield API (GET /api/v1/api-keys/current: HTTP ${key.status})`] };
    }
    for (const permission of missingInvoicePermissions(permissions as string[], this.options.storeId)) {
      problems.push(`BTCPAY_API_KEY: the key lacks ${permission} for store ${this.options.storeId} (grant it on that store, or unscoped)`);
    }
    let storeName: string | undefined;
    const store = await this.probe('GET', this.store);
    if ('failure' in store) return { ok: false, problems: [...problems, reach(store.failure, this.options)] };
    if (store.status === 200) {
      const name = (store.body as { name?: unknown } | null)?.name;
      if (typeof name === 'string') storeName = name;
    } else if (store.status === 404) {
      problems.push(`BTCPAY_STORE_ID: BTCPay has no store ${this.options.storeId} (copy the Store ID from the store's Settings > General page)`);
    } else if (store.status === 403) {
      const invoices = await this.probe('GET', `${this.base}?take=1`);
      if ('failure' in invoices) return { ok: false, problems: [...problems, reach(invoices.failure, this.options)] };
      if ((invoices.status === 403 || invoices.status === 404) && problems.length === 0) {
        problems.push(`BTCPAY_STORE_ID: the key cannot see store ${this.options.storeId}: no such store, or the key belongs to a user without access to it`);
      } else if (invoices.status !== 200 && invoices.status !== 403 && invoices.status !== 404) {
        const path = `GET /api/v1/stores/${this.options.storeId}/invoices`;
        problems.push(failingLine(invoices.status, path, this.options) ?? `BTCPAY_URL: unexpected answer to ${path}: HTTP ${invoices.status}`);
      }
    } else {
      const path = `GET /api/v1/stores/${this.options.storeId}`;
      problems.push(failingLine(store.status, path, this.options) ?? `BTCPAY_URL: unexpected answer to ${path}: HTTP ${store.status}`);
    }
    return { ok: problems.length === 0, ...(storeName === undefined ? {} : { storeName }), problems };
  }

  private async probe(method: string, url: string): Promise<Answer | { failure: 'timeout' | 'unreachable' }> {
    try {
      return await this.call(method, url);
    } catch (err) {
      const cause = (err as { cause?: unknown }).cause;
      return { failure: cause instanceof UpstreamFailure && cause.reason === 'timeout' ? 'timeout' : 'unreachable' };
    }
  }

  private async call(method: string, url: string, body?: unknown): Promise<Answer> {
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers: { authorization: `token ${this.options.apiKey}`, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.options.timeoutMs),
        redirect: 'error',
      });
    } catch (err) {
      throw processorErrors.create.processor_unavailable({ cause: new UpstreamFailure('btcpay', isTimeout(err) ? 'timeout' : 'unreachable') });
    }
    let text: string;
    try {
      text = await response.text();
    } catch (err) {
      throw processorErrors.create.processor_unavailable({ cause: new UpstreamFailure('btcpay', isTimeout(err) ? 'timeout' : 'unreachable', { status: response.status }) });
    }
    let parsed: unknown = null;
    try {
      parsed = text === '' ? null : JSON.parse(text);
    } catch {
      parsed = null;
    }
    return { status: response.status, body: parsed };
  }
}

function isTimeout(err: unknown): boolean {
  return (err as { name?: unknown } | null)?.name === 'TimeoutError';
}

function classify(response: Answer): ProcessorFailureReason {
  if (response.status === 401) return 'unauthorized';
  if (response.status === 403) return 'forbidden';
  if (response.status === 404) return errorCodeOf(response.body) === 'store-not-found' ? 'store_not_found' : 'not_found';
  if (response.status === 429) return 'rate_limited';
  if (response.status >= 500 && response.status <= 599) return 'upstream_error';
  return 'bad_answer';
}

function failed(reason: ProcessorFailureReason, response: Answer) {
  const upstreamCode = errorCodeOf(response.body);
  return processorErrors.create.processor_unavailable({
    cause: new UpstreamFailure('btcpay', reason, { status: response.status, ...(upstreamCode === undefined ? {} : { upstreamCode }) }),
  });
}

function reach(failure: 'timeout' | 'unreachable', options: GreenfieldOptions): string {
  return failure === 'timeout'
    ? `BTCPAY_URL: ${originOf(options.url)} did not answer within ${options.timeoutMs} ms (UPSTREAM_TIMEOUT_MS)`
    : `BTCPAY_URL: cannot reach ${originOf(options.url)} (connection refused, unknown host, TLS error or a redirect)`;
}

/** The line for a 5xx or a 429: BTCPay (or a proxy in front of it) is failing, not the settings; undefined for any other status. */
function failingLine(status: number, request: string, options: GreenfieldOptions): string | undefined {
  if (status === 429) return `BTCPAY_URL: ${originOf(options.url)} is rate-limiting the backend (HTTP 429 to ${request}); retry later`;
  if (status >= 500 && status <= 599) return `BTCPAY_URL: ${originOf(options.url)} answered HTTP ${status} to ${request}: BTCPay, or a proxy in front of it, is failing or down; retry later`;
  return undefined;
}

/** Scheme, host and port only: the URL may carry credentials in its user part or query. */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'the configured URL';
  }
}
