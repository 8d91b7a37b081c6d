#!/usr/bin/env node
import { Command, InvalidArgumentError } from 'commander';
import { createRelayAdmission, ADMISSION_DEFAULTS } from './admission.js';
import { startNauthzServer } from './grpc.js';
import { runStrfryPlugin, STRFRY_DEFAULT_TIMEOUT_MS } from './strfry.js';

const whole = (name: string) => (text: string) => {
  if (!/^\d{1,7}$/.test(text)) throw new InvalidArgumentError(`${name} must be a whole number`);
  return Number(text);
};

function admissionFrom(options: { databaseUrl?: string; cacheTtlMs: number; policy: string }) {
  const databaseUrl = options.databaseUrl ?? process.env.DATABASE_URL;
  if (databaseUrl === undefined || databaseUrl === '') {
    process.stderr.write('wallet-relay-admission: the wallet database is needed: --database-url or DATABASE_URL\n');
    process.exit(2);
  }
  if (options.policy !== 'premium-post' && options.policy !== 'open') {
    process.stderr.write('wallet-relay-admission: --policy must be premium-post or open\n');
    process.exit(2);
  }
  // The relays verify ids and signatures before they ask.
  return createRelayAdmission({ databaseUrl, verifySignatures: false, cacheTtlMs: options.cacheTtlMs, writePolicy: options.policy });
}

const program = new Command('wallet-relay-admission')
  .description('Admits Nostr events to the operator relay by the wallet’s premium-post policy (docs/relay-operators.md)')
  .option('--database-url <url>', 'the wallet database (default: DATABASE_URL)')
  .option('--policy <name>', 'premium-post or open', ADMISSION_DEFAULTS.writePolicy)
  .option('--cache-ttl-ms <ms>', 'how long a user’s standing is reused (a premium lapse is exact regardless)', whole('--cache-ttl-ms'), ADMISSION_DEFAULTS.cacheTtlMs);

program
  .command('strfry')
  .description('strfry write-policy plugin: JSON lines on stdin, one decision line per request on stdout')
  .option('--timeout-ms <ms>', 'reject a decision slower than this (strfry waits 10 s)', whole('--timeout-ms'), STRFRY_DEFAULT_TIMEOUT_MS)
  .action(async (options: { timeoutMs: number }) => {
    const admission = admissionFrom(program.opts());
    await runStrfryPlugin({ admission, input: process.stdin, output: process.stdout, warn: (message) => process.stderr.write(`${message}\n`), timeoutMs: options.timeoutMs });
    await admission.close();
  });

program
  .command('grpc')
  .description('nostr-rs-relay event admission server (nauthz.Authorization/EventAdmit)')
  .option('--listen <host:port>', 'where to listen', '127.0.0.1:50051')
  .option('--timeout-ms <ms>', 'deny a decision slower than this', whole('--timeout-ms'), ADMISSION_DEFAULTS.timeoutMs)
  .action(async (options: { listen: string; timeoutMs: number }) => {
    const admission = admissionFrom(program.opts());
    const server = await startNauthzServer({ admission, listen: options.listen, timeoutMs: options.timeoutMs });
    process.stderr.write(`${JSON.stringify({ level: 'info', msg: 'nauthz admission server listening', address: server.address })}\n`);
    const stop = () => {
      void server.close().then(() => admission.close()).then(() => process.exit(0));
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });

await program.parseAsync();
