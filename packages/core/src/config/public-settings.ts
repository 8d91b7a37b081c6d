import type { Settings } from './schema.js';
import { SECRET_SETTINGS, type SecretSetting } from './secrets.js';

/** Settings without their secrets, and which secrets are set: what a plugin and a host's `backend.settings` may read. */
export type PublicSettings = Omit<Settings, SecretSetting> & { readonly configuredSecrets: readonly SecretSetting[] };

/** The same for settings not yet known to be valid (a plugin's `validateConfig`): any field may be missing. */
export type PublicSettingsInput = Partial<Omit<Settings, SecretSetting>> & { readonly configuredSecrets: readonly SecretSetting[] };

const isSecret = (key: string): key is SecretSetting => (SECRET_SETTINGS as readonly string[]).includes(key);

/** The database URL with its password replaced by `***`: the pool keeps the real one. */
function withoutPassword(databaseUrl: unknown): unknown {
  if (typeof databaseUrl !== 'string' || !/^postgres(ql)?:\/\//i.test(databaseUrl)) return databaseUrl;
  try {
    const url = new URL(databaseUrl);
    if (url.password === '') return databaseUrl;
    url.password = '***';
    return url.toString();
  } catch {
    // Not a URL core would accept either; nothing that looks like a password is passed on.
    return databaseUrl.replace(/\/\/([^:/@]*):[^@]*@/, '//$1:***@');
  }
}

/** A frozen copy without the secret settings (and without the database URL's password); `configuredSecrets` names the secrets that have a value. */
export function withoutSecrets(settings: Readonly<Settings>): Readonly<PublicSettings>;
export function withoutSecrets(settings: Readonly<Partial<Settings>>): Readonly<PublicSettingsInput>;
export function withoutSecrets(settings: Readonly<Partial<Settings>>): Readonly<PublicSettingsInput> {
  const view: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(settings)) if (!isSecret(key)) view[key] = key === 'databaseUrl' ? withoutPassword(value) : value;
  const configuredSecrets = Object.freeze(SECRET_SETTINGS.filter((key) => settings[key] !== undefined && settings[key] !== ''));
  return Object.freeze({ ...view, configuredSecrets }) as PublicSettingsInput;
}
