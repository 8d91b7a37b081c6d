/** A server URL (PUBLIC_API_URL, a client's baseUrl) without trailing slashes, so `url + path` never doubles a slash. */
export function trimService(service: string): string {
  return service.replace(/\/+$/, '');
}
