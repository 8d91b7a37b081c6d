import type { CreateInvoiceInput, ProcessorInvoice } from './greenfield.js';

/**
 * The payment processor (core's BTCPay Greenfield client, pull model): its authenticated API is
 * the source of truth and only `Settled` grants anything. Failures throw 503
 * `processor_unavailable`. Declared here, beside its implementation; the plugin contract
 * re-exports it.
 */
export interface PaymentProcessor {
  createInvoice(input: CreateInvoiceInput): Promise<ProcessorInvoice>;
  /** The invoice, or null when the processor does not know it. */
  getInvoice(invoiceId: string): Promise<ProcessorInvoice | null>;
}
