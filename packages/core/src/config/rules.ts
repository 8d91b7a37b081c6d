import { isIP } from 'node:net';
import type { Settings } from './schema.js';

/** A trusted-proxy entry: an IPv4/IPv6 address, optionally with a /prefix. */
export function isAddressOrCidr(entry: string): boolean {
  const [address, prefix, extra] = entry.split('/');
  if (extra !== undefined || address === undefined) return false;
  const family = isIP(address);
  if (family === 0) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * Rules that span several settings; each returns every violation it finds. They run only on
 * input that passed the schema, so they can trust the types.
 */
export function crossFieldViolations(settings: Settings): string[] {
  const problems: string[] = [];
  for (const entry of settings.trustedProxies) {
    if (!isAddressOrCidr(entry)) problems.push(`trustedProxies (TRUSTED_PROXIES): "${entry}" is not an IP address or CIDR block`);
  }
  if (settings.refreshTokenTtlSec <= settings.accessTokenTtlSec) {
    problems.push('refreshTokenTtlSec (REFRESH_TOKEN_TTL_SEC): must be longer than accessTokenTtlSec');
  }
  const secrets: Array<[string, string | undefined]> = [
    ['jwtSecret', settings.jwtSecret],
    ['pepperSecret', settings.pepperSecret],
    ['ipHashSalt', settings.ipHashSalt],
    ['adminKeyIntegritySecret', settings.adminKeyIntegritySecret],
  ];
  for (let i = 0; i < secrets.length; i++) {
    for (let j = i + 1; j < secrets.length; j++) {
      const [nameA, a] = secrets[i]!;
      const [nameB, b] = secrets[j]!;
      if (a !== undefined && a === b) problems.push(`${nameA} and ${nameB} must be different secrets`);
    }
  }
  const integrity = settings.adminKeyIntegritySecret;
  if (integrity !== undefined && settings.databaseUrl.includes(integrity)) {
    problems.push('adminKeyIntegritySecret (ADMIN_KEY_INTEGRITY_SECRET): must be separate from the database URL');
  }
  if (settings.nodeEnv === 'production' && settings.databaseUrl.startsWith('sqlite:') === false && settings.databasePoolMax < 2) {
    problems.push('databasePoolMax (DATABASE_POOL_MAX): a production Postgres pool needs at least 2 connections');
  }
  return problems;
}
