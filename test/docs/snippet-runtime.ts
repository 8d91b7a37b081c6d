/**
 * The child process a documentation snippet runs in (`node --import tsx snippet-runtime.ts
 * <snippet>`). A snippet is written for a real host, so it may listen on 8080: every listen here
 * takes a free loopback port instead. Once the snippet's module has finished (top-level await
 * included), each server it left listening must answer `GET <prefix>/api/v1/health` for each
 * prefix the test names (proof that what it mounted is a working backend); the findings go to
 * the file named by SNIPPET_RESULT, because a snippet's own logger owns stdout. Then the process exits, whatever the snippet left running.
 */
import { writeFileSync } from 'node:fs';
import { once } from 'node:events';
import net, { type AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';

const servers: net.Server[] = [];
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (this: net.Server, ...args: unknown[]) {
  servers.push(this);
  const callback = args.find((arg) => typeof arg === 'function') as (() => void) | undefined;
  return listen.call(this, { port: 0, host: '127.0.0.1' }, callback);
} as typeof listen;

const [snippet] = process.argv.slice(2);
const resultFile = process.env.SNIPPET_RESULT;
if (snippet === undefined || resultFile === undefined) throw new Error('usage: SNIPPET_RESULT=<file> node --import tsx snippet-runtime.ts <snippet>');

await import(pathToFileURL(snippet).href);
// The prefixes the snippet mounts backends under (SNIPPET_PROBE_PREFIXES, a JSON array; the root by default).
const prefixes = JSON.parse(process.env.SNIPPET_PROBE_PREFIXES ?? '[""]') as string[];
const probes: Array<{ path: string; status: number }> = [];
for (const server of servers) {
  if (!server.listening) await Promise.race([once(server, 'listening'), delay(2_000)]);
  if (!server.listening) continue;
  const { port } = server.address() as AddressInfo;
  for (const prefix of prefixes) {
    const path = `${prefix}/api/v1/health`;
    const res = await fetch(`http://127.0.0.1:${port}${path}`);
    probes.push({ path, status: res.status });
  }
}
writeFileSync(resultFile, JSON.stringify({ probes }));
process.exit(0);
