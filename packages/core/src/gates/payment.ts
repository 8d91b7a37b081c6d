import type { Clock } from '../clock/index.js';
import type { Peppers } from '../crypto/index.js';
import type { RegistrationAttempt, RegistrationGate, RegistrationIdentity } from '../identity/index.js';
import type { PaymentProcessor } from '../processor/index.js';
import type { Database, Knex } from '../storage/index.js';
import { gateErrors } from './errors.js';

export interface PaymentTerms {
  price: string;
  currency: string;
  confirmations: 1 | 2 | 6;
  expiryMinutes: number;
}

export interface RegistrationInvoice {
  invoice_id: string;
  checkout_link: string;
  amount: string;
  currency: string;
  expires_at: string;
}

/**
 * Pay-to-register (spec › Invoices): an invoice on the processor bound to the identity that will
 * register; at registration the processor must report it `Settled` (anything else is unpaid) and
 * the binding is consumed once by a conditional update inside the registering transaction, so a
 * failure after payment leaves the invoice redeemable.
 */
export class RegistrationPayments implements RegistrationGate {
  readonly name = 'payment';

  constructor(
    private readonly db: Database,
    private readonly processor: PaymentProcessor,
    private readonly peppers: Peppers,
    private readonly clock: Clock,
    private readonly terms: PaymentTerms,
  ) {}

  private binding(identity: RegistrationIdentity): string {
    return this.peppers.pepper(`${identity.kind}:${identity.value}`);
  }

  async createInvoice(identity: RegistrationIdentity): Promise<RegistrationInvoice> {
    const binding = this.binding(identity);
    const invoice = await this.processor.createInvoice({
      amount: this.terms.price,
      currency: this.terms.currency,
      // The processor sees only the peppered binding, never the wallet's identity.
      metadata: { orderId: 'wallet-registration', binding },
      expirationMinutes: this.terms.expiryMinutes,
      confirmations: this.terms.confirmations,
    });
    await this.db.knex('registration_invoices').insert({
      invoice_id: invoice.id,
      identity_binding: binding,
      created_at: this.db.dialect.time(this.clock.now()),
      consumed_at: null,
    });
    return {
      invoice_id: invoice.id,
      checkout_link: invoice.checkoutLink,
      amount: invoice.amount,
      currency: invoice.currency,
      expires_at: new Date(invoice.expirationTime * 1000).toISOString(),
    };
  }

  async precheck(attempt: RegistrationAttempt): Promise<void> {
    const invoiceId = attempt.inputs.payment_invoice_id;
    if (invoiceId === undefined) throw gateErrors.create.payment_required();
    const row = await this.db.knex('registration_invoices').where({ invoice_id: invoiceId, identity_binding: this.binding(attempt.identity) }).whereNull('consumed_at').first();
    if (row === undefined) throw gateErrors.create.payment_invalid();
    const invoice = await this.processor.getInvoice(invoiceId);
    if (invoice === null || invoice.status !== 'Settled') throw gateErrors.create.payment_invalid();
  }

  async admit(attempt: RegistrationAttempt, trx: Knex.Transaction): Promise<void> {
    const invoiceId = attempt.inputs.payment_invoice_id;
    if (invoiceId === undefined) throw gateErrors.create.payment_required();
    const consumed = await this.db.transitionOne(
      'registration_invoices',
      (qb) => qb.where({ invoice_id: invoiceId, identity_binding: this.binding(attempt.identity) }).whereNull('consumed_at'),
      { consumed_at: this.db.dialect.time(this.clock.now()) },
      trx,
    );
    if (consumed === null) throw gateErrors.create.payment_invalid();
  }
}
