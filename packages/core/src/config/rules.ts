import { isIP } from 'node:net';
import { envNameOf } from './env-name.js';
import { REQUIRED_SECRETS } from './secrets.js';

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

const label = (key: string) => `${key} (${envNameOf(key)})`;

/**
 * Rules that span several settings. They run whether or not the schema passed, so each checks
 * only the fields it can use (right type) and leaves type errors to the schema; together with
 * the schema's issues the operator gets every violation at once.
 */
export function crossFieldViolations(settings: Readonly<Record<string, unknown>>): string[] {
  const problems: string[] = [];
  const { accessTokenTtlSec = 900, refreshTokenTtlSec = 2_592_000, databaseUrl } = settings;
  if (typeof accessTokenTtlSec === 'number' && typeof refreshTokenTtlSec === 'number' && refreshTokenTtlSec <= accessTokenTtlSec) {
    problems.push(`${label('refreshTokenTtlSec')}: must be longer than accessTokenTtlSec`);
  }
  const secrets = REQUIRED_SECRETS.flatMap((key) => (typeof settings[key] === 'string' ? [[key, settings[key]] as const] : []));
  for (let i = 0; i < secrets.length; i++) {
    for (let j = i + 1; j < secrets.length; j++) {
      if (secrets[i]![1] === secrets[j]![1]) problems.push(`${secrets[i]![0]} and ${secrets[j]![0]} must be different secrets`);
    }
  }
  const integrity = settings.adminKeyIntegritySecret;
  if (typeof integrity === 'string' && integrity !== '' && typeof databaseUrl === 'string' && databaseUrl.includes(integrity)) {
    problems.push(`${label('adminKeyIntegritySecret')}: must be separate from the database URL`);
  }
  problems.push(...paymentGateViolations(settings));
  for (const [esplora, electrum] of [['btcEsploraUrl', 'btcElectrumUrl'], ['ltcEsploraUrl', 'ltcElectrumUrl']] as const) {
    if (settings[esplora] !== undefined && settings[electrum] !== undefined) problems.push(`${label(esplora)} and ${label(electrum)}: choose one upstream per chain`);
  }
  for (const [lws, daemon] of [['xmrLwsUrl', 'xmrDaemonUrl'], ['wowLwsUrl', 'wowDaemonUrl']] as const) {
    if ((settings[lws] === undefined) !== (settings[daemon] === undefined)) problems.push(`${label(lws)} and ${label(daemon)}: set both or neither`);
  }
  return problems;
}

/** Spec › General rule 3: pay-to-register fails closed unless it can really be paid and checked. */
function paymentGateViolations(settings: Readonly<Record<string, unknown>>): string[] {
  if (settings.registrationRequirePayment !== true) return [];
  const problems: string[] = [];
  const production = settings.nodeEnv === 'production';
  for (const key of ['registrationPrice', 'btcpayUrl', 'btcpayStoreId', 'btcpayApiKey'] as const) {
    if (settings[key] === undefined || settings[key] === '') problems.push(`${label(key)}: is required when registrationRequirePayment is on`);
  }
  if (production && typeof settings.publicApiUrl === 'string' && !settings.publicApiUrl.startsWith('https://')) {
    problems.push(`${label('publicApiUrl')}: must use https when registrationRequirePayment is on in production`);
  }
  if (production && typeof settings.btcpayUrl === 'string' && !settings.btcpayUrl.startsWith('https://')) {
    problems.push(`${label('btcpayUrl')}: must use https in production`);
  }
  return problems;
}
