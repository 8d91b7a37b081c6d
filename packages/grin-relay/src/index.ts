export { grinRelayPlugin } from './plugin.js';
export { RELAY_DEFAULTS, type GrinRelayOptions } from './options.js';
export { grinRelayErrors } from './errors.js';
export { RELAY_STATUS, type RelayEntry, type RelayStatus } from './entry.js';
export { armorSlatepack, isWellFormedSlatepack, MAX_SLATEPACK_BYTES } from './slatepack.js';
export { RELAY_TABLE } from './migrations.js';
