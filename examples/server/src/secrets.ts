import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const SECRET_KEYS = ['jwtSecret', 'pepperSecret', 'ipHashSalt', 'adminKeyIntegritySecret'] as const;
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
    const complete = SECRET_KEYS.every((key) => typeof stored[key] === 'string' && stored[key]!.length >= 32);
    if (!complete) throw new Error(`${path} is incomplete; delete it to have fresh development secrets generated`);
    return { secrets: stored as DevSecrets, created: false, path };
  }
  if (!options.create) return { secrets: undefined, created: false, path };
  const secrets = Object.fromEntries(SECRET_KEYS.map((key) => [key, randomBytes(32).toString('base64url')])) as DevSecrets;
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(path, JSON.stringify(secrets, null, 2) + '\n', { mode: 0o600, flag: 'wx' });
  return { secrets, created: true, path };
}
