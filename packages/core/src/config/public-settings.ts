import type { Settings } from './schema.js';
import { maskDatabasePassword } from '../storage/index.js';
import { SECRET_SETTINGS, type SecretSetting } from './secrets.js';

/** Settings without their secrets, and which secrets are set: what a plugin and a host's `backend.settings` may read. */
export type PublicSettings = Omit<Settings, SecretSetting> & { readonly configuredSecrets: readonly SecretSetting[] };

/** The same for settings not yet known to be valid (a plugin's `validateConfig`): any field may be missing. */
export type PublicSettingsInput = Partial<Omit<Settings, SecretSetting>> & { readonly configuredSecrets: readonly SecretSetting[] };

const isSecret = (key: string): key is SecretSetting => (SECRET_SETTINGS as readonly string[]).includes(key);

/** A frozen copy without the secret settings (and without the database URL's password); `configuredSecrets` names the secrets that have a value. */
export function withoutSecrets(settings: Readonly<Settings>): Readonly<PublicSettings>;
export function withoutSecrets(settings: Readonly<Partial<Settings>>): Readonly<PublicSettingsInput>;
export function withoutSecrets(settings: Readonly<Partial<Settings>>): Readonly<PublicSettingsInput> {
  const view: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(settings)) if (!isSecret(key)) view[key] = key === 'databaseUrl' && typeof value === 'string' ? maskDatabasePassword(value) : value;
  const configuredSecrets = Object.freeze(SECRET_SETTINGS.filter((key) => settings[key] !== undefined && settings[key] !== ''));
  return Object.freeze({ ...view, configuredSecrets }) as PublicSettingsInput;
}
