/**
 * The ceiling for `npm run bench:admission`: a strfry write-policy plugin that accepts every
 * event, written the plain Node way (nostrify's strfry adapter reads its lines the same way):
 * readline over stdin, read through its async iterator, JSON.parse each line, write one minified
 * JSON answer line echoing event.id. It decides nothing. It measured level with strfry's own
 * example plugin (docs/plugins.md: readline `line` events, `console.log`) made to accept all.
 * `wallet-relay-admission strfry` does the same protocol work with readline's `line` events and
 * `process.stdout.write`, no promise per line: docs/testing.md gives what each costs.
 */
import { createInterface } from 'node:readline';

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (line.trim() === '') continue;
  const request = JSON.parse(line);
  process.stdout.write(`${JSON.stringify({ id: request.event.id, action: 'accept', msg: '' })}\n`);
}
