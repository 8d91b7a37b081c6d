export { erasurePlugin } from './plugin.js';
export { ERASURE_DEFAULTS, CONFIRM_WINDOW_MS, type ErasureOptions } from './options.js';
export { erasureErrors } from './errors.js';
export { ERASURE_STATUS, ERASURE_STATUSES, PURPOSE as ERASURE_PURPOSE } from './request.js';
export { ERASURE_TABLE } from './migrations.js';
