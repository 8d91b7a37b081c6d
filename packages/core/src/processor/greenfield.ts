import { processorErrors } from './errors.js';

/** BTCPay invoice statuses; only `Settled` grants anything, and anything unknown is unpaid. */
export type InvoiceStatus = 'New' | 'Processing' | 'Settled' | 'Expired' | 'Invalid' | (string & {});

export interface ProcessorInvoice {
  id: string;
  status: InvoiceStatus;
  amount: string;
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

const SPEED_POLICY = { 1: 'MediumSpeed', 2: 'LowMediumSpeed', 6: 'LowSpeed' } as const;

function asInvoice(value: unknown): ProcessorInvoice | null {
  const v = value as Record<string, unknown> | null;
  if (typeof v !== 'object' || v === null) return null;
  if (typeof v.id !== 'string' || typeof v.status !== 'string') return null;
  return {
    id: v.id,
    status: v.status,
    amount: typeof v.amount === 'string' ? v.amount : String(v.amount ?? ''),
    currency: typeof v.currency === 'string' ? v.currency : '',
    checkoutLink: typeof v.checkoutLink === 'string' ? v.checkoutLink : '',
    expirationTime: typeof v.expirationTime === 'number' ? v.expirationTime : 0,
    metadata: typeof v.metadata === 'object' && v.metadata !== null ? (v.metadata as Record<string, unknown>) : {},
  };
}

/**
 * The BTCPay Server Greenfield API, pull model: the processor's authenticated API is the
 * source of truth and no webhook is trusted. Every failure (network, timeout, 5xx, auth,
 * malformed answer) is 503 `processor_unavailable`; the API key never appears in errors.
 * @see https://docs.btcpayserver.org/API/Greenfield/v1/
 */
export class GreenfieldClient {
  private readonly base: string;

  constructor(private readonly options: GreenfieldOptions) {
    this.base = `${options.url.replace(/\/+$/, '')}/api/v1/stores/${encodeURIComponent(options.storeId)}/invoices`;
  }

  async createInvoice(input: CreateInvoiceInput): Promise<ProcessorInvoice> {
    const response = await this.call('POST', this.base, {
      amount: input.amount,
      currency: input.currency,
      metadata: input.metadata,
      checkout: { speedPolicy: SPEED_POLICY[input.confirmations], expirationMinutes: input.expirationMinutes },
    });
    if (response.status !== 200) throw processorErrors.create.processor_unavailable();
    const invoice = asInvoice(response.body);
    if (invoice === null) throw processorErrors.create.processor_unavailable();
    return invoice;
  }

  /** The invoice, or null when the processor does not know it (404). */
  async getInvoice(invoiceId: string): Promise<ProcessorInvoice | null> {
    const response = await this.call('GET', `${this.base}/${encodeURIComponent(invoiceId)}`);
    if (response.status === 404) return null;
    if (response.status !== 200) throw processorErrors.create.processor_unavailable();
    const invoice = asInvoice(response.body);
    if (invoice === null || invoice.id !== invoiceId) throw processorErrors.create.processor_unavailable();
    return invoice;
  }

  private async call(method: string, url: string, body?: unknown): Promise<{ status: number; body: unknown }> {
    try {
      const response = await fetch(url, {
        method,
        headers: { authorization: `token ${this.options.apiKey}`, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.options.timeoutMs),
        redirect: 'error',
      });
      const text = await response.text();
      let parsed: unknown = null;
      try {
        parsed = text === '' ? null : JSON.parse(text);
      } catch {
        parsed = null;
      }
      return { status: response.status, body: parsed };
    } catch {
      throw processorErrors.create.processor_unavailable();
    }
  }
}
