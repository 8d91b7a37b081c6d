export { settingsSchema, type Settings, type SettingsInput } from './schema.js';
export { validateSettings, envNameOf, type SettingsVerdict } from './validate.js';
export { isAddressOrCidr } from './rules.js';
export { REQUIRED_SECRETS, SECRET_SETTINGS, type SecretSetting } from './secrets.js';
export { withoutSecrets, type PublicSettings, type PublicSettingsInput } from './public-settings.js';
export { readSecretFiles, type SecretFiles } from '../secret-files/index.js';
