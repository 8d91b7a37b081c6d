/**
 * The ceiling for `npm run bench:admission`: a strfry write-policy plugin that accepts every
 * event. It does the same I/O as `wallet-relay-admission strfry` (read a line, JSON.parse it,
 * write one minified JSON answer line echoing event.id) and decides nothing.
 */
import { createInterface } from 'node:readline';

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (line.trim() === '') continue;
  const request = JSON.parse(line);
  process.stdout.write(`${JSON.stringify({ id: request.event.id, action: 'accept', msg: '' })}\n`);
}
