export { tipsPlugin } from './plugin.js';
export { TIPS_DEFAULTS, CONFIRMATIONS, AMOUNT_BOUNDS, type TipsOptions } from './options.js';
export { tipErrors } from './errors.js';
export { TIP_STATUS, TIP_STATUSES, TIP_ASSETS, CLAIMABLE_STATUSES, CLAWABLE_STATUSES, type TipStatus, type TipAsset } from './tip.js';
export { TIPS_TABLE } from './migrations.js';
