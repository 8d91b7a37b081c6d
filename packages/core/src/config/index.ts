export { settingsSchema, type Settings, type SettingsInput } from './schema.js';
export { validateSettings, envNameOf, type SettingsVerdict } from './validate.js';
export { isAddressOrCidr } from './rules.js';
