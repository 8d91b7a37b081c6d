import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const SECRET_KEYS = ['jwtSecret', 'pepperSecret', 'ipHashSalt', 'adminKeyIntegritySecret', 'adminSessionSecret'] as const;
export type SecretKey = (typeof SECRET_KEYS)[number];
export type DevSecrets = Record<SecretKey, string>;

export const DEV_SECRETS_FILE = 'dev-secrets.json';

/**
 * Development secrets, generated ONCE into the data directory (mode 0600) and reused after,
 * so tokens and peppered hashes survive restarts. Never used in production: the server
 * refuses to start there without real secrets.
 */
export function loadDevSecrets(dataDir: string, options: { create: boolean }): { secrets: DevSecrets | undefined; created: boolean; path: string } {
  const path = join(dataDir, DEV_SECRETS_FILE);
  if (existsSync(path)) {
    const stored = JSON.parse(readFileSync(path, 'utf8')) as Partial<DevSecrets>;
    const usable = (key: SecretKey) => typeof stored[key] === 'string' && stored[key]!.length >= 32;
    const missing = SECRET_KEYS.filter((key) => !usable(key));
    // A secret added by a newer release is generated next to the old ones, which stay as they are
    // (changing them would orphan tokens and peppered hashes).
    if (missing.length === SECRET_KEYS.length) throw new Error(`${path} holds no usable secret; delete it to have fresh development secrets generated`);
    if (missing.length > 0) {
      if (!options.create) return { secrets: undefined, created: false, path };
      for (const key of missing) stored[key] = randomBytes(32).toString('base64url');
      writeFileSync(path, JSON.stringify(stored, null, 2) + '\n', { mode: 0o600 });
      return { secrets: stored as DevSecrets, created: true, path };
    }
    return { secrets: stored as DevSecrets, created: false, path };
  }
  if (!options.create) return { secrets: undefined, created: false, path };
  const secrets = Object.fromEntries(SECRET_KEYS.map((key) => [key, randomBytes(32).toString('base64url')])) as DevSecrets;
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(path, JSON.stringify(secrets, null, 2) + '\n', { mode: 0o600, flag: 'wx' });
  return { secrets, created: true, path };
}
