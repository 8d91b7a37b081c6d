import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../harness/processes.js';

const announced = new Set<string>();

/**
 * Real regtest daemons from Debian's packages (`monero`, `litecoind`). `.ci/run` installs them
 * and sets WALLET_REAL_DAEMONS=required, so in CI a missing binary fails the run; on a developer
 * machine without them the tier is skipped with a message saying how to enable it.
 */
export function requireDaemon(binary: string, context: Mocha.Context): void {
  if (spawnSync('which', [binary]).status === 0) return;
  if (process.env.WALLET_REAL_DAEMONS === 'required') throw new Error(`${binary} is not installed but WALLET_REAL_DAEMONS=required (apt-get install monero litecoind)`);
  // Say why once, instead of a row of silent pendings.
  if (!announced.has(binary)) {
    announced.add(binary);
    console.log(`  real-daemon tier skipped: ${binary} not installed (apt-get install monero litecoind to run it)`);
  }
  context.skip();
}

/** Starts a daemon, trying again (new ports, new directory) when it exits early, e.g. on a port taken in between. */
/** monero-wallet-rpc's answers when its own request to the daemon failed, before it did anything. */
const WALLET_DAEMON_HICCUP = /Failed to get earliest fork height|no connection to daemon|daemon is busy/i;

async function withRetries(start: () => Promise<Daemon>): Promise<Daemon> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await start();
    } catch (err) {
      if (attempt >= 3 || !/exited with/.test((err as Error).message)) throw err;
    }
  }
}

async function waitFor(check: () => Promise<boolean>, what: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${what} exited with ${child.exitCode}:\n${log().slice(-2000)}`);
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${what} not ready in 60 s:\n${log().slice(-2000)}`);
}

export interface Daemon {
  rpcUrl: string;
  rpc(method: string, params: unknown): Promise<any>;
  stop(): Promise<void>;
}

function spawnLogged(binary: string, args: string[]): { child: ChildProcess; log: () => string } {
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000)));
  child.stderr!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000)));
  return { child, log: () => output };
}

async function stopChild(child: ChildProcess, dir: string): Promise<void> {
  if (child.exitCode === null) {
    child.kill('SIGTERM');
    await new Promise<void>((resolve) => {
      const force = setTimeout(() => child.kill('SIGKILL'), 15_000);
      child.once('exit', () => {
        clearTimeout(force);
        resolve();
      });
    });
  }
  rmSync(dir, { recursive: true, force: true });
}

/** monerod --regtest --offline with a fixed difficulty of 1: blocks come from `generateblocks`. */
export function startMonerod(): Promise<Daemon> {
  return withRetries(startMonerodOnce);
}

async function startMonerodOnce(): Promise<Daemon> {
  const dir = mkdtempSync(join(tmpdir(), 'monerod-'));
  const [rpcPort, p2pPort] = [await freePort(), await freePort()];
  const { child, log } = spawnLogged('monerod', [
    '--regtest', '--offline', '--fixed-difficulty', '1', '--data-dir', dir, '--non-interactive', '--no-igd', '--disable-rpc-ban',
    '--rpc-bind-ip', '127.0.0.1', '--rpc-bind-port', String(rpcPort), '--p2p-bind-port', String(p2pPort), '--no-zmq', '--log-level', '0',
  ]);
  const rpcUrl = `http://127.0.0.1:${rpcPort}`;
  const rpc = async (method: string, params: unknown) => {
    const response = await fetch(`${rpcUrl}/json_rpc`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: '0', method, params }) });
    const body = (await response.json()) as { result?: unknown; error?: { message: string } };
    if (body.error) throw new Error(`monerod ${method}: ${body.error.message}`);
    return body.result;
  };
  await waitFor(async () => (await fetch(`${rpcUrl}/get_height`, { method: 'POST', body: '{}' })).ok, 'monerod', child, log).catch(async (err: unknown) => {
    await stopChild(child, dir);
    throw err;
  });
  return { rpcUrl, rpc, stop: () => stopChild(child, dir) };
}

/** monero-wallet-rpc on a fresh wallet directory, talking to `monerod` (regtest uses mainnet addresses). */
export function startMoneroWallet(monerod: Daemon): Promise<Daemon> {
  return withRetries(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'monero-wallet-'));
    const rpcPort = await freePort();
    const { child, log } = spawnLogged('monero-wallet-rpc', [
      '--daemon-address', monerod.rpcUrl.replace('http://', ''), '--trusted-daemon', '--wallet-dir', dir, '--shared-ringdb-dir', join(dir, 'ringdb'),
      '--rpc-bind-ip', '127.0.0.1', '--rpc-bind-port', String(rpcPort), '--disable-rpc-login', '--non-interactive', '--log-level', '0',
      // Its log defaults to the working directory, i.e. the checkout.
      '--log-file', join(dir, 'monero-wallet-rpc.log'),
    ]);
    const rpcUrl = `http://127.0.0.1:${rpcPort}`;
    const rpc = async (method: string, params: unknown) => {
      for (let attempt = 1; ; attempt++) {
        const response = await fetch(`${rpcUrl}/json_rpc`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: '0', method, params }) });
        const body = (await response.json()) as { result?: unknown; error?: { message: string } };
        if (!body.error) return body.result;
        // The wallet's own query to a busy daemon timed out (seen under a loaded full test run):
        // nothing was created or sent, so the call is asked again.
        if (attempt < 5 && WALLET_DAEMON_HICCUP.test(body.error.message)) {
          await new Promise((resolve) => setTimeout(resolve, 1_000));
          continue;
        }
        throw new Error(`monero-wallet-rpc ${method}: ${body.error.message}`);
      }
    };
    await waitFor(async () => (await rpc('get_version', {})) !== undefined, 'monero-wallet-rpc', child, log).catch(async (err: unknown) => {
      await stopChild(child, dir);
      throw err;
    });
    return { rpcUrl, rpc, stop: () => stopChild(child, dir) };
  });
}

/** litecoind -regtest with a wallet (and a transaction index, for the Esplora shim): addresses and transactions made by Litecoin Core itself. */
export function startLitecoind(): Promise<Daemon> {
  return withRetries(startLitecoindOnce);
}

async function startLitecoindOnce(): Promise<Daemon> {
  const dir = mkdtempSync(join(tmpdir(), 'litecoind-'));
  const [rpcPort, p2pPort] = [await freePort(), await freePort()];
  const { child, log } = spawnLogged('litecoind', [
    '-regtest', `-datadir=${dir}`, `-rpcport=${rpcPort}`, `-port=${p2pPort}`, '-rpcuser=wallet', '-rpcpassword=backend', '-rpcbind=127.0.0.1', '-rpcallowip=127.0.0.1',
    '-fallbackfee=0.0002', '-listen=0', '-server=1', '-printtoconsole=1', '-txindex=1',
  ]);
  const rpcUrl = `http://127.0.0.1:${rpcPort}`;
  const rpc = async (method: string, params: unknown) => {
    const response = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from('wallet:backend').toString('base64')}` },
      body: JSON.stringify({ jsonrpc: '1.0', id: 'test', method, params }),
    });
    const body = (await response.json()) as { result?: unknown; error?: { message: string } | null };
    if (body.error) throw new Error(`litecoind ${method}: ${body.error.message}`);
    return body.result;
  };
  await waitFor(async () => (await rpc('getblockcount', [])) !== undefined, 'litecoind', child, log).catch(async (err: unknown) => {
    await stopChild(child, dir);
    throw err;
  });
  return { rpcUrl, rpc, stop: () => stopChild(child, dir) };
}
