import { expect } from 'chai';
import { serverNodeFlags } from '../harness/index.js';
import { runHeapFlagsBench, variants } from './heap-flags.js';

/**
 * `npm run bench:heap-flags` at its smallest (one start per variant, 1 s per path): each flag set
 * starts the built server, answers both paths and stops, so the bench cannot rot. Which set is
 * cheaper is the bench's business (it never fails on a figure); this checks every figure was
 * measured and that the variants differ from start:prod by exactly the flag they name.
 */
describe('bench: heap flags (smoke)', function () {
  this.timeout(120_000);

  it('tries start:prod, and start:prod without each of its two GC flags, measuring every start', async () => {
    const [prod, withPretenuring, unbounded] = variants();
    expect(prod!.flags).to.deep.equal(serverNodeFlags());
    expect(prod!.flags).to.include('--no-allocation-site-pretenuring');
    expect(withPretenuring!.flags).to.deep.equal(prod!.flags.filter((flag) => flag !== '--no-allocation-site-pretenuring'));
    expect(unbounded!.flags).to.deep.equal(prod!.flags.filter((flag) => !flag.startsWith('--max-old-space-size=')));
    expect(unbounded!.flags).to.have.length(prod!.flags.length - 1);

    const lines: string[] = [];
    const result = await runHeapFlagsBench({ starts: 1, durationSec: 1, log: (line) => lines.push(line) });
    expect(result.starts.map((start) => start.variant)).to.deep.equal(variants().map((variant) => variant.name));
    for (const start of result.starts) {
      expect(start.cpuUs.health, JSON.stringify(start)).to.be.greaterThan(0);
      expect(start.cpuUs.username, JSON.stringify(start)).to.be.greaterThan(start.cpuUs.health / 10);
      expect(start.peakRssMb, JSON.stringify(start)).to.be.greaterThan(20);
    }
    expect(result.summary).to.have.length(6);
    expect(lines).to.have.length(3);
  });
});
