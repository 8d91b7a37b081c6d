import { expect } from 'chai';
import { REPO_ROOT, serverNodeFlags, spawnEntry } from '../harness/index.js';

/** The probe's heap limits (bytes) under `flags`, with or without the server's keepWorkerHeapBounds(). */
async function limits(flags: string[], keep: boolean): Promise<{ main: number; worker: number }> {
  const probe = spawnEntry('test/examples/heap-flags-probe.ts', keep ? ['keep'] : [], { env: {}, cwd: REPO_ROOT, nodeFlags: flags });
  const code = await probe.exited;
  expect(code, probe.stderr()).to.equal(0);
  return JSON.parse(probe.stdout()) as { main: number; worker: number };
}

const MB = 1_048_576;

describe("reference server heap flags: the main thread's young space, the scan worker's own bounds", function () {
  this.timeout(60_000);
  let plain: { main: number; worker: number };
  let oldOnly: { main: number; worker: number };
  let server: { main: number; worker: number };
  let serverUnkept: { main: number; worker: number };

  before(async () => {
    const flags = serverNodeFlags();
    expect(flags, 'start:prod sets the young space').to.include('--max-semi-space-size=8');
    [plain, oldOnly, server, serverUnkept] = await Promise.all([
      limits([], false),
      limits(flags.filter((flag) => !flag.startsWith('--max-semi-space-size')), false),
      limits(flags, true),
      limits(flags, false),
    ]);
  });

  it('the premise: a process-wide --max-semi-space-size outranks a worker’s resourceLimits', () => {
    expect(serverUnkept.worker, 'the worker under the flag, not cleared').to.be.greaterThan(plain.worker);
  });

  it('the server’s main isolate has the smaller young space; clearing the flag leaves it so', () => {
    // V8's heap limit is the old space plus the young generation: the same old bound, 8 MB
    // semi-spaces instead of 16, so the limit is smaller by a whole number of MB.
    expect(server.main).to.equal(serverUnkept.main);
    expect(server.main).to.be.lessThan(oldOnly.main);
    expect((oldOnly.main - server.main) % MB).to.equal(0);
  });

  it('a scan worker made after keepWorkerHeapBounds() has its own young bound, as under no flags', () => {
    // Its old space still follows --max-old-space-size (docs/operators.md "Memory"), so the
    // yardstick is a worker under the old-space flag alone.
    expect(server.worker).to.equal(oldOnly.worker);
  });
});
