/**
 * The replicas bench's proxy as a process of its own (so it does not share an event loop with
 * the load): `proxy-main.ts <port> <upstream url>…`; prints one JSON ready line with its pid and url.
 */
import { startProxy } from './proxy.js';

const [portText, ...upstreams] = process.argv.slice(2);
if (portText === undefined || upstreams.length === 0) {
  process.stderr.write('usage: proxy-main.ts <port> <upstream url>...\n');
  process.exit(2);
}
const proxy = await startProxy(Number(portText), upstreams);
process.stdout.write(`${JSON.stringify({ msg: 'proxy ready', pid: process.pid, url: proxy.url })}\n`);
process.on('SIGTERM', () => {
  void proxy.close().then(() => process.exit(0));
});
