/** `publicApiUrl` → `PUBLIC_API_URL`: the one-to-one mapping between settings and environment. */
export function envNameOf(key: string): string {
  return key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
}
