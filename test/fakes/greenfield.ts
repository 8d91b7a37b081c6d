import { randomBytes } from 'node:crypto';
import { HttpFake, type FakeRequest } from './http-fake.js';

export const FAKE_STORE_ID = 'FakeStore9CiNzKoANXxmk5ayZngSX';
export const FAKE_API_KEY = 'fake-greenfield-api-key-0123456789';

interface FakeInvoice {
  id: string;
  storeId: string;
  amount: string;
  currency: string;
  status: string;
  additionalStatus: string;
  checkoutLink: string;
  createdTime: number;
  expirationTime: number;
  monitoringExpiration: number;
  metadata: Record<string, unknown>;
  checkout: Record<string, unknown>;
  type: 'Standard';
  archived: boolean;
}

/**
 * A BTCPay Server speaking the Greenfield invoice API as documented (protocols.md §1): store-
 * scoped paths, `Authorization: token <key>`, InvoiceData bodies with unix-second times,
 * validation errors as an array, other errors as `{code, message}`. Tests move invoices through
 * statuses with `setStatus` (including unknown ones) and use the HttpFake modes for outages.
 */
export class GreenfieldFake extends HttpFake {
  readonly invoices = new Map<string, FakeInvoice>();

  constructor(private readonly now: () => Date = () => new Date()) {
    super();
    const base = `/api/v1/stores/${FAKE_STORE_ID}/invoices`;
    this.route(`POST ${base}`, (req, body) => this.create(req, body as Record<string, unknown>));
    this.fallback = (req) => this.get(req, base);
  }

  setStatus(invoiceId: string, status: string): void {
    const invoice = this.invoices.get(invoiceId);
    if (!invoice) throw new Error(`no invoice ${invoiceId}`);
    invoice.status = status;
  }

  private authorised(req: FakeRequest): boolean {
    return req.headers.authorization === `token ${FAKE_API_KEY}`;
  }

  private create(req: FakeRequest, body: Record<string, unknown> | undefined) {
    if (!this.authorised(req)) return { status: 401, json: { code: 'unauthenticated', message: 'Authentication is required for accessing this endpoint' } };
    const amount = body?.amount;
    if (typeof amount !== 'string' || !(Number(amount) > 0)) return { status: 400, json: [{ path: 'amount', message: 'Amount should be greater than 0' }] };
    const created = Math.floor(this.now().getTime() / 1000);
    const checkout = (body?.checkout ?? {}) as Record<string, unknown>;
    const id = randomBytes(11).toString('base64url').replace(/[-_]/g, 'x');
    const invoice: FakeInvoice = {
      id,
      storeId: FAKE_STORE_ID,
      amount,
      currency: String(body?.currency ?? 'BTC'),
      status: 'New',
      additionalStatus: 'None',
      checkoutLink: `${this.url}/i/${id}`,
      createdTime: created,
      expirationTime: created + Number(checkout.expirationMinutes ?? 15) * 60,
      monitoringExpiration: created + 86_400,
      metadata: (body?.metadata ?? {}) as Record<string, unknown>,
      checkout,
      type: 'Standard',
      archived: false,
    };
    this.invoices.set(id, invoice);
    return { status: 200, json: invoice };
  }

  private get(req: FakeRequest, base: string) {
    const path = req.path.split('?')[0]!;
    if (req.method !== 'GET' || !path.startsWith(`${base}/`)) return { status: 404, json: { code: 'generic-error', message: 'Not found' } };
    if (!this.authorised(req)) return { status: 401, json: { code: 'unauthenticated', message: 'Authentication is required for accessing this endpoint' } };
    const invoice = this.invoices.get(decodeURIComponent(path.slice(base.length + 1)));
    if (!invoice) return { status: 404, json: { code: 'invoice-not-found', message: 'The invoice was not found' } };
    return { status: 200, json: invoice };
  }
}
