import { BlockList, isIP } from 'node:net';

/** `::ffff:10.0.0.1` → `10.0.0.1`, so one client has one form. */
export function normaliseIp(address: string): string {
  const trimmed = address.trim();
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(trimmed);
  return mapped ? mapped[1]! : trimmed.toLowerCase();
}

export type ClientIpResolver = (socketAddress: string | undefined, forwardedFor: string | undefined) => string;

/**
 * The real client IP. X-Forwarded-For counts only when the hop that sent it is a configured
 * trusted proxy: the chain is walked from the right, skipping trusted proxies, and the first
 * untrusted address is the client. With no trusted proxies the socket address is the answer,
 * so a client cannot choose its own IP by sending the header. A malformed entry ends the walk
 * at the last trusted hop rather than believing anything left of it.
 */
export function createClientIpResolver(trustedProxies: readonly string[]): ClientIpResolver {
  const trusted = new BlockList();
  for (const entry of trustedProxies) {
    const [written, prefixText] = entry.split('/') as [string, string | undefined];
    // Clients are compared in normalised form, so `::ffff:10.0.0.1[/104]` becomes IPv4
    // `10.0.0.1[/8]`; a mapped range wider than /96 spans more than IPv4 and stays IPv6.
    const address = normaliseIp(written);
    const mapped = address !== written.trim().toLowerCase() && isIP(address) === 4;
    const prefix = prefixText === undefined ? undefined : Number(prefixText);
    if (mapped && (prefix === undefined || prefix >= 96)) {
      if (prefix === undefined) trusted.addAddress(address, 'ipv4');
      else trusted.addSubnet(address, prefix - 96, 'ipv4');
    } else {
      const family = isIP(written) === 6 ? 'ipv6' : 'ipv4';
      if (prefix === undefined) trusted.addAddress(written, family);
      else trusted.addSubnet(written, prefix, family);
    }
  }
  const isTrusted = (ip: string) => {
    const family = isIP(ip);
    return family !== 0 && trusted.check(ip, family === 6 ? 'ipv6' : 'ipv4');
  };

  return (socketAddress, forwardedFor) => {
    let client = normaliseIp(socketAddress ?? '');
    if (trustedProxies.length === 0 || !isTrusted(client) || !forwardedFor) return client || 'unknown';
    const hops = forwardedFor.split(',').map(normaliseIp).filter((hop) => hop !== '');
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = hops[i]!;
      if (isIP(hop) === 0) break;
      client = hop;
      if (!isTrusted(hop)) break;
    }
    return client || 'unknown';
  };
}
