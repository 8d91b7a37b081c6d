import { randomBytes } from 'node:crypto';
import { HttpFake, type FakeReply, type FakeRequest } from './http-fake.js';

export const FAKE_STORE_ID = 'FakeStore9CiNzKoANXxmk5ayZngSX';
export const FAKE_API_KEY = 'fake-greenfield-api-key-0123456789';

/** What the backend's key needs, scoped to the fake's store: the default grant. */
export const INVOICE_PERMISSIONS = [`btcpay.store.cancreateinvoice:${FAKE_STORE_ID}`, `btcpay.store.canviewinvoices:${FAKE_STORE_ID}`];

/**
 * The server's settings for paid registration through `fake` (its URL, the fake's store and key,
 * a short upstream timeout so an outage is seen quickly).
 */
export function btcpayEnv(fake: GreenfieldFake): Record<string, string> {
  return {
    REGISTRATION_REQUIRE_PAYMENT: 'true',
    REGISTRATION_PRICE: '0.0001',
    BTCPAY_URL: fake.url,
    BTCPAY_STORE_ID: FAKE_STORE_ID,
    BTCPAY_API_KEY: FAKE_API_KEY,
    UPSTREAM_TIMEOUT_MS: '300',
  };
}

interface FakeInvoice {
  id: string;
  storeId: string;
  amount: string;
  paidAmount: string;
  currency: string;
  type: 'Standard' | 'TopUp';
  status: string;
  additionalStatus: string;
  checkoutLink: string;
  createdTime: number;
  expirationTime: number;
  monitoringExpiration: number;
  metadata: Record<string, unknown>;
  checkout: Record<string, unknown>;
  availableStatusesForManualMarking: string[];
  archived: boolean;
}

/**
 * BTCPay's policy tree (BTCPayServer.Client `Permission.PolicyMap`), the part that reaches
 * invoices and stores: a policy grants itself and everything below it.
 */
const POLICY_CHILDREN: Record<string, readonly string[]> = {
  'btcpay.store.canmodifystoresettings': ['btcpay.store.canmodifyinvoices', 'btcpay.store.canviewstoresettings'],
  'btcpay.store.canmodifyinvoices': ['btcpay.store.canviewinvoices', 'btcpay.store.cancreateinvoice'],
  'btcpay.store.canviewstoresettings': ['btcpay.store.canviewinvoices'],
};

function policyIncludes(policy: string, wanted: string): boolean {
  if (policy === 'unrestricted' || policy === wanted) return true;
  return (POLICY_CHILDREN[policy] ?? []).some((child) => policyIncludes(child, wanted));
}

const UNAUTHENTICATED: FakeReply = { status: 401, json: { code: 'unauthenticated', message: 'Authentication is required for accessing this endpoint' } };

/**
 * A BTCPay Server speaking the Greenfield API as BTCPay publishes it (its OpenAPI document and
 * BTCPayServer.Client's models): `Authorization: token <key>`; `GET /api/v1/api-keys/current`
 * answering `{apiKey, label, permissions}`; `GET /api/v1/stores/{id}`; the store's invoices
 * (create, get, list) with InvoiceData bodies (`amount`, `paidAmount`, `type`, unix-second
 * times); a create without an amount is a top-up invoice (`type: "TopUp"`, amount "0"). Errors:
 * 401 `unauthenticated`; 403 `insufficient-api-permissions` with `missingPermission` when the
 * key's permissions (checked through BTCPay's policy tree, store-scoped or not) do not cover
 * the call; 404 `store-not-found` for an unknown store when the key could see every store (a
 * key scoped to other stores gets the 403); 404 `invoice-not-found`; validation errors as an
 * array of `{path, message}`; a path outside the Greenfield routes gets a 404
 * `generic-error` (a wrong BTCPAY_URL path). Tests change `permissions`, move invoices
 * through statuses with `setStatus` (including unknown ones), put a proxy's answer in front
 * with `proxyReply` (502, 429), hold every answer with `hold`, and use the HttpFake modes for
 * outages.
 */
export class GreenfieldFake extends HttpFake {
  readonly invoices = new Map<string, FakeInvoice>();
  /** The key's permissions, as `GET /api-keys/current` lists them and every call enforces them. */
  permissions: string[] = [...INVOICE_PERMISSIONS];
  storeName = 'Wallet registrations';
  /** When set, every request gets this answer instead of BTCPay's: a reverse proxy in front of a BTCPay that is down (502) or rate-limiting (429). */
  proxyReply: FakeReply | undefined;
  /** When set, every request waits for it before it is answered: a BTCPay that answers late, on the test's cue. */
  hold: Promise<unknown> | undefined;

  constructor(private readonly now: () => Date = () => new Date()) {
    super();
    this.route('GET /api/v1/api-keys/current', (req) =>
      this.answer(() => (this.authorised(req) ? { status: 200, json: { apiKey: FAKE_API_KEY, label: 'wallet backend', permissions: this.permissions } } : UNAUTHENTICATED)),
    );
    // Invoice creation has a route of its own so tests can wrap it (hold a creation at the processor).
    this.route(`POST /api/v1/stores/${FAKE_STORE_ID}/invoices`, (req, body) => this.answer(() => this.storeRoute(req, body)));
    this.fallback = (req, body) => this.answer(() => this.storeRoute(req, body));
  }

  private async answer(reply: () => FakeReply): Promise<FakeReply> {
    await this.hold;
    return this.proxyReply ?? reply();
  }

  setStatus(invoiceId: string, status: string): void {
    const invoice = this.invoices.get(invoiceId);
    if (!invoice) throw new Error(`no invoice ${invoiceId}`);
    invoice.status = status;
    if (status === 'Settled' && invoice.paidAmount === '0') invoice.paidAmount = invoice.amount;
  }

  private authorised(req: FakeRequest): boolean {
    return req.headers.authorization === `token ${FAKE_API_KEY}`;
  }

  /** Null when the key may make the call on `storeId`; the refusal BTCPay would send otherwise. */
  private refusal(policy: string, storeId: string): FakeReply | null {
    let unscoped = false;
    for (const entry of this.permissions) {
      const [granted, scope] = entry.split(':') as [string, string | undefined];
      if (!policyIncludes(granted.toLowerCase(), policy)) continue;
      if (scope === undefined) unscoped = true;
      else if (scope === storeId) return storeId === FAKE_STORE_ID ? null : { status: 404, json: { code: 'store-not-found', message: 'The store was not found' } };
    }
    if (unscoped) return storeId === FAKE_STORE_ID ? null : { status: 404, json: { code: 'store-not-found', message: 'The store was not found' } };
    return {
      status: 403,
      json: {
        code: 'insufficient-api-permissions',
        message: `Insufficient API Permissions. Please use an API key with permission "${policy}" (${policy}).`,
        missingPermission: policy,
        missingPermissionDescription: policy,
      },
    };
  }

  private storeRoute(req: FakeRequest, body: unknown): FakeReply {
    const path = req.path.split('?')[0]!;
    const match = /^\/api\/v1\/stores\/([^/]+)(\/invoices(?:\/([^/]+))?)?$/.exec(path);
    if (match === null) return { status: 404, json: { code: 'generic-error', message: 'Not found' } };
    if (!this.authorised(req)) return UNAUTHENTICATED;
    const storeId = decodeURIComponent(match[1]!);
    const [, , invoices, invoiceId] = match;
    if (invoices === undefined) {
      if (req.method !== 'GET') return { status: 405, json: { code: 'generic-error', message: 'Method not allowed' } };
      return this.refusal('btcpay.store.canviewstoresettings', storeId) ?? { status: 200, json: { id: FAKE_STORE_ID, name: this.storeName, defaultCurrency: 'BTC', invoiceExpiration: 900 } };
    }
    if (req.method === 'POST' && invoiceId === undefined) return this.refusal('btcpay.store.cancreateinvoice', storeId) ?? this.create(body as Record<string, unknown> | undefined);
    if (req.method !== 'GET') return { status: 405, json: { code: 'generic-error', message: 'Method not allowed' } };
    const refused = this.refusal('btcpay.store.canviewinvoices', storeId);
    if (refused !== null) return refused;
    if (invoiceId === undefined) return { status: 200, json: [...this.invoices.values()].slice(0, 1) };
    const invoice = this.invoices.get(decodeURIComponent(invoiceId));
    if (!invoice) return { status: 404, json: { code: 'invoice-not-found', message: 'The invoice was not found' } };
    return { status: 200, json: invoice };
  }

  private create(body: Record<string, unknown> | undefined): FakeReply {
    const amount = body?.amount;
    const topUp = amount === undefined || amount === null;
    if (!topUp && (typeof amount !== 'string' || !(Number(amount) > 0))) return { status: 400, json: [{ path: 'amount', message: 'Amount should be greater than 0' }] };
    const created = Math.floor(this.now().getTime() / 1000);
    const checkout = (body?.checkout ?? {}) as Record<string, unknown>;
    const id = randomBytes(11).toString('base64url').replace(/[-_]/g, 'x');
    const invoice: FakeInvoice = {
      id,
      storeId: FAKE_STORE_ID,
      amount: topUp ? '0' : (amount as string),
      paidAmount: '0',
      currency: String(body?.currency ?? 'BTC'),
      type: topUp ? 'TopUp' : 'Standard',
      status: 'New',
      additionalStatus: 'None',
      checkoutLink: `${this.url}/i/${id}`,
      createdTime: created,
      expirationTime: created + Number(checkout.expirationMinutes ?? 15) * 60,
      monitoringExpiration: created + 86_400,
      metadata: (body?.metadata ?? {}) as Record<string, unknown>,
      checkout,
      availableStatusesForManualMarking: ['Settled', 'Invalid'],
      archived: false,
    };
    this.invoices.set(id, invoice);
    return { status: 200, json: invoice };
  }
}
