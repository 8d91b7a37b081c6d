export { premiumPlugin } from './plugin.js';
export { PREMIUM_DEFAULTS, MAX_PLAN_DAYS, WRITE_POLICIES, parsePlans, type PremiumOptions, type PremiumPlan } from './options.js';
export { premiumErrors } from './errors.js';
export { PREMIUM_INVOICES_TABLE } from './migrations.js';
export { INVOICE_STATES, type InvoiceState } from './schemas.js';
