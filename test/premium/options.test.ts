import { expect } from 'chai';
import { MAX_PLAN_DAYS, parsePlans, PREMIUM_DEFAULTS, type PremiumOptions, type PremiumPlan } from '@wallet/premium';
import { premiumOptionProblems } from '../../packages/premium/src/options.js';

/** Premium's options, unit by unit: every message is the literal text, every bound on both sides. */

const P = 'plans (PREMIUM_PLANS)';
const idProblem = (label: string) => `${P}: ${label}: the id must be 1–32 of a-z, 0-9, "_" and "-", starting with a letter or digit`;
const daysProblem = (label: string) => `${P}: ${label}: days must be a whole number from 1 to 3660`;
const amountProblem = (label: string) => `${P}: ${label}: the amount must be a positive decimal (at most 8 decimals)`;
const shapeProblem = (text: string) => `${P}: "${text}" is not id:days:amount`;

const MSG = {
  enabled: 'enabled (PREMIUM_ENABLED) must be true or false',
  currency: 'currency (PREMIUM_CURRENCY) must be a currency code such as BTC, SATS or USD',
  writePolicy: 'writePolicy (RELAY_WRITE_POLICY) must be one of premium-post, open',
  relayUrl: 'relayUrl (RELAY_URL) must be a ws:// or wss:// URL',
  relayWss: 'relayUrl (RELAY_URL) must use wss in production',
  confirmations: 'confirmations (PREMIUM_CONFIRMATIONS) must be 1, 2 or 6 (0-confirmation is refused)',
  expiry: 'invoiceExpiryMinutes (PREMIUM_INVOICE_EXPIRY_MINUTES) must be a whole number from 5 to 1440',
  maxPending: 'maxPendingInvoices (PREMIUM_MAX_PENDING_INVOICES) must be a whole number from 1 to 100',
  plansType: 'plans (PREMIUM_PLANS) must be id:days:amount entries separated by commas',
  needsRelay: 'premium (PREMIUM_ENABLED) needs the relay on: set relayUrl (RELAY_URL)',
  needsPolicy: 'premium (PREMIUM_ENABLED) needs the premium-post write policy (RELAY_WRITE_POLICY=premium-post)',
  needsUrl: 'premium (PREMIUM_ENABLED) needs the payment processor: btcpayUrl (BTCPAY_URL) is missing',
  needsStore: 'premium (PREMIUM_ENABLED) needs the payment processor: btcpayStoreId (BTCPAY_STORE_ID) is missing',
  needsKey: 'premium (PREMIUM_ENABLED) needs the payment processor: btcpayApiKey (BTCPAY_API_KEY) is missing',
  needsPlan: 'premium (PREMIUM_ENABLED) needs at least one plan in plans (PREMIUM_PLANS)',
} as const;

const BTCPAY = { btcpayUrl: 'https://btcpay.example', btcpayStoreId: 'store', configuredSecrets: ['btcpayApiKey'] } as const;
const SOUND: PremiumOptions = { enabled: true, plans: 'month:30:0.0001', relayUrl: 'wss://relay.example', writePolicy: 'premium-post' };

/** The problems of one option changed from sound options (premium on, processor configured). */
const problemsWith = (change: Partial<Record<keyof PremiumOptions, unknown>>, nodeEnv = 'test') => premiumOptionProblems({ ...SOUND, ...change } as PremiumOptions, { nodeEnv, ...BTCPAY });

describe('premium options: parsePlans', () => {
  it('parses id:days:amount entries separated by commas, trimming and skipping empty entries', () => {
    expect(parsePlans('month:30:0.0001,year:365:0.001')).to.deep.equal({
      plans: [
        { id: 'month', days: 30, amount: '0.0001' },
        { id: 'year', days: 365, amount: '0.001' },
      ],
      problems: [],
    });
    expect(parsePlans(' month:30:0.0001 , ,year:365:0.001, ')).to.deep.equal({
      plans: [
        { id: 'month', days: 30, amount: '0.0001' },
        { id: 'year', days: 365, amount: '0.001' },
      ],
      problems: [],
    });
    expect(parsePlans('')).to.deep.equal({ plans: [], problems: [] });
  });

  it('days: 1 and 3660 accepted; 0, 3661, fractions, signs and words refused', () => {
    expect(MAX_PLAN_DAYS).to.equal(3660);
    expect(parsePlans('a:1:1').plans).to.deep.equal([{ id: 'a', days: 1, amount: '1' }]);
    expect(parsePlans('a:3660:1').plans).to.deep.equal([{ id: 'a', days: 3660, amount: '1' }]);
    for (const days of ['0', '3661', '1.5', '-1', '+1', 'x', '', '1234567890', ' 1']) {
      const text = `a:${days}:1`;
      expect(parsePlans(text), days).to.deep.equal({ plans: [], problems: [daysProblem(`"${text.trim()}"`)] });
    }
  });

  it('amounts: positive decimals with at most 8 decimals and 15 integer digits', () => {
    for (const amount of ['0.00000001', '1', '0.1', '10', '1.12345678', '123456789012345', '999999999999999.99999999']) {
      expect(parsePlans(`a:1:${amount}`), amount).to.deep.equal({ plans: [{ id: 'a', days: 1, amount }], problems: [] });
    }
    for (const amount of ['0', '0.0', '0.00000000', '1.123456789', '01', '00.1', '-1', '+1', '1e5', '1234567890123456', '1.', '.5', '1;5', '', ' 1', '0x10', 'Infinity']) {
      const text = `a:1:${amount}`;
      expect(parsePlans(text), amount).to.deep.equal({ plans: [], problems: [amountProblem(`"${text.trim()}"`)] });
    }
  });

  it('ids: 1–32 of a-z, 0-9, _ and -, starting with a letter or digit; each used once', () => {
    const id32 = 'a'.repeat(32);
    for (const id of ['a', '1y', 'a-b_c', id32, '0']) expect(parsePlans(`${id}:1:1`).plans, id).to.deep.equal([{ id, days: 1, amount: '1' }]);
    for (const id of ['Month', 'A', 'a'.repeat(33), '-a', '_a', '', 'a b', 'a.b', 'é']) {
      const text = `${id}:1:1`;
      expect(parsePlans(text), id).to.deep.equal({ plans: [], problems: [idProblem(`"${text}"`)] });
    }
    expect(parsePlans('a:1:1,b:2:2,a:3:3')).to.deep.equal({ plans: [{ id: 'a', days: 1, amount: '1' }, { id: 'b', days: 2, amount: '2' }], problems: [`${P}: plan id "a" is used twice`] });
    // An entry refused for another reason still claims its id.
    expect(parsePlans('a:0:1,a:1:1')).to.deep.equal({ plans: [], problems: [daysProblem('"a:0:1"'), `${P}: plan id "a" is used twice`] });
  });

  it('malformed entries: not three parts', () => {
    expect(parsePlans('a:1')).to.deep.equal({ plans: [], problems: [shapeProblem('a:1')] });
    expect(parsePlans('a:1:1:1')).to.deep.equal({ plans: [], problems: [shapeProblem('a:1:1:1')] });
    expect(parsePlans('month')).to.deep.equal({ plans: [], problems: [shapeProblem('month')] });
  });

  it('lists every problem (malformed entries first, then entry by entry, in order), keeping the sound plans', () => {
    expect(parsePlans('BAD:0:0,ok:7:0.5,x:1,a:3661:1.123456789')).to.deep.equal({
      plans: [{ id: 'ok', days: 7, amount: '0.5' }],
      problems: [shapeProblem('x:1'), idProblem('"BAD:0:0"'), daysProblem('"BAD:0:0"'), amountProblem('"BAD:0:0"'), daysProblem('"a:3661:1.123456789"'), amountProblem('"a:3661:1.123456789"')],
    });
  });

  it('the array form: labelled plan 1, plan 2, …; checked like the text form', () => {
    const good: PremiumPlan[] = [
      { id: 'month', days: 30, amount: '0.0001' },
      { id: 'year', days: 3660, amount: '0.00000001' },
    ];
    expect(parsePlans(good)).to.deep.equal({ plans: good, problems: [] });
    expect(parsePlans([])).to.deep.equal({ plans: [], problems: [] });
    const bad = [{ id: 'ok', days: 1, amount: '1' }, { id: 'M', days: 0, amount: 1 }, null, { id: 'ok', days: 1.5, amount: '0' }, { id: 'd', days: '30', amount: '1' }, { id: 'e', days: 3661, amount: '1' }] as unknown as PremiumPlan[];
    expect(parsePlans(bad)).to.deep.equal({
      plans: [{ id: 'ok', days: 1, amount: '1' }],
      problems: [
        idProblem('plan 2'),
        daysProblem('plan 2'),
        amountProblem('plan 2'),
        idProblem('plan 3'),
        daysProblem('plan 3'),
        amountProblem('plan 3'),
        `${P}: plan id "ok" is used twice`,
        daysProblem('plan 4'),
        amountProblem('plan 4'),
        daysProblem('plan 5'),
        daysProblem('plan 6'),
      ],
    });
  });

  it('neither text nor a list', () => {
    for (const value of [42, null, { id: 'a' }, true]) expect(parsePlans(value as unknown as string), String(value)).to.deep.equal({ plans: [], problems: [MSG.plansType] });
  });
});

describe('premium options: premiumOptionProblems', () => {
  it('defaults: premium off, no options, no settings: no problem', () => {
    expect(PREMIUM_DEFAULTS).to.deep.equal({ enabled: false, currency: 'BTC', writePolicy: 'open', confirmations: 1, invoiceExpiryMinutes: 60, maxPendingInvoices: 5 });
    expect(premiumOptionProblems({}, {})).to.deep.equal([]);
    expect(premiumOptionProblems({ enabled: false }, { nodeEnv: 'production' })).to.deep.equal([]);
    expect(premiumOptionProblems(SOUND, BTCPAY)).to.deep.equal([]);
    expect(premiumOptionProblems(SOUND, { nodeEnv: 'production', ...BTCPAY })).to.deep.equal([]);
  });

  it('enabled must be a boolean', () => {
    for (const enabled of ['true', 1, null]) expect(problemsWith({ enabled }), String(enabled)).to.deep.equal([MSG.enabled]);
  });

  it('currency: 3–5 capital letters', () => {
    for (const currency of ['BTC', 'SATS', 'USD', 'USDTX']) expect(problemsWith({ currency }), currency).to.deep.equal([]);
    for (const currency of ['btc', 'BT', 'BTCXYZ', 'B1C', '', 42]) expect(problemsWith({ currency }), String(currency)).to.deep.equal([MSG.currency]);
  });

  it('writePolicy: premium-post or open (and premium on needs premium-post)', () => {
    expect(problemsWith({ writePolicy: 'premium-post' })).to.deep.equal([]);
    expect(problemsWith({ writePolicy: 'open' })).to.deep.equal([MSG.needsPolicy]);
    expect(problemsWith({ writePolicy: undefined })).to.deep.equal([MSG.needsPolicy]);
    expect(problemsWith({ writePolicy: 'closed' })).to.deep.equal([MSG.writePolicy, MSG.needsPolicy]);
    expect(premiumOptionProblems({ writePolicy: 'Premium-Post' } as PremiumOptions, {})).to.deep.equal([MSG.writePolicy]);
  });

  it('relay URL: ws:// or wss://; http:// refused; ws:// refused only in production', () => {
    for (const nodeEnv of ['test', 'development', 'production']) {
      expect(problemsWith({ relayUrl: 'wss://relay.example' }, nodeEnv), nodeEnv).to.deep.equal([]);
      expect(problemsWith({ relayUrl: 'wss://relay.example:7777/path' }, nodeEnv), nodeEnv).to.deep.equal([]);
      for (const relayUrl of ['http://relay.example', 'https://relay.example', 'relay.example', 'ws://', 'wss://', 'wss://relay example', 'wss:///path', 'WSS://relay.example', 42]) {
        expect(problemsWith({ relayUrl }, nodeEnv), `${nodeEnv} ${String(relayUrl)}`).to.deep.equal([MSG.relayUrl]);
      }
    }
    expect(problemsWith({ relayUrl: 'ws://relay.example' }, 'test')).to.deep.equal([]);
    expect(problemsWith({ relayUrl: 'ws://relay.example' }, 'development')).to.deep.equal([]);
    expect(problemsWith({ relayUrl: 'ws://relay.example' }, 'production')).to.deep.equal([MSG.relayWss]);
    expect(premiumOptionProblems({ relayUrl: 'ws://relay.example' }, { nodeEnv: 'production' }), 'even with premium off').to.deep.equal([MSG.relayWss]);
  });

  it('confirmations: 1, 2 or 6', () => {
    for (const confirmations of [1, 2, 6]) expect(problemsWith({ confirmations }), String(confirmations)).to.deep.equal([]);
    for (const confirmations of [0, 3, 6.5, -1, '1', null]) expect(problemsWith({ confirmations }), String(confirmations)).to.deep.equal([MSG.confirmations]);
  });

  it('invoiceExpiryMinutes: a whole number from 5 to 1440', () => {
    for (const minutes of [5, 60, 1440]) expect(problemsWith({ invoiceExpiryMinutes: minutes }), String(minutes)).to.deep.equal([]);
    for (const minutes of [4, 1441, 0, 5.5, '60', null]) expect(problemsWith({ invoiceExpiryMinutes: minutes }), String(minutes)).to.deep.equal([MSG.expiry]);
  });

  it('maxPendingInvoices: a whole number from 1 to 100', () => {
    for (const max of [1, 5, 100]) expect(problemsWith({ maxPendingInvoices: max }), String(max)).to.deep.equal([]);
    for (const max of [0, 101, -1, 1.5, '5', null]) expect(problemsWith({ maxPendingInvoices: max }), String(max)).to.deep.equal([MSG.maxPending]);
  });

  it('plans: their problems are reported whether premium is on or off; premium on needs at least one plan', () => {
    expect(premiumOptionProblems({ plans: 'a:0:1' }, {})).to.deep.equal([daysProblem('"a:0:1"')]);
    expect(problemsWith({ plans: 'a:0:1' }), 'a plan with problems: no "needs a plan" on top').to.deep.equal([daysProblem('"a:0:1"')]);
    expect(problemsWith({ plans: '' })).to.deep.equal([MSG.needsPlan]);
    expect(problemsWith({ plans: [] })).to.deep.equal([MSG.needsPlan]);
    expect(problemsWith({ plans: undefined })).to.deep.equal([MSG.needsPlan]);
    expect(problemsWith({ plans: 'a:0:1,b:1:1' })).to.deep.equal([daysProblem('"a:0:1"')]);
  });

  it('premium on with everything missing: every problem at once', () => {
    expect(premiumOptionProblems({ enabled: true }, {})).to.deep.equal([MSG.needsRelay, MSG.needsPolicy, MSG.needsUrl, MSG.needsStore, MSG.needsKey, MSG.needsPlan]);
    expect(premiumOptionProblems({ enabled: true }, { nodeEnv: 'production', btcpayUrl: 'https://btcpay.example' })).to.deep.equal([MSG.needsRelay, MSG.needsPolicy, MSG.needsStore, MSG.needsKey, MSG.needsPlan]);
  });

  it('premium on with everything wrong: every problem at once, in order', () => {
    const options = {
      enabled: true,
      currency: 'btc',
      writePolicy: 'closed',
      relayUrl: 'http://relay.example',
      confirmations: 0,
      invoiceExpiryMinutes: 4,
      maxPendingInvoices: 101,
      plans: 'a:1,B:1:1',
    } as unknown as PremiumOptions;
    expect(premiumOptionProblems(options, { nodeEnv: 'production' })).to.deep.equal([
      MSG.currency,
      MSG.writePolicy,
      MSG.relayUrl,
      MSG.confirmations,
      MSG.expiry,
      MSG.maxPending,
      shapeProblem('a:1'),
      idProblem('"B:1:1"'),
      MSG.needsPolicy,
      MSG.needsUrl,
      MSG.needsStore,
      MSG.needsKey,
    ]);
    // A non-boolean `enabled` is reported, and does not switch the premium-on checks on.
    expect(premiumOptionProblems({ ...options, enabled: 'yes' } as unknown as PremiumOptions, {})).to.deep.equal([
      MSG.enabled,
      MSG.currency,
      MSG.writePolicy,
      MSG.relayUrl,
      MSG.confirmations,
      MSG.expiry,
      MSG.maxPending,
      shapeProblem('a:1'),
      idProblem('"B:1:1"'),
    ]);
  });
});
