import { expect } from 'chai';
import { runStartupBench } from './startup.js';

/**
 * `npm run bench:startup` at its smallest (2 rounds per dialect): the built reference server and
 * the bundled bare server each start, answer /health and stop, so the bench cannot rot. Timing is
 * the bench's business (it never fails on a ratio); this only checks every figure was measured.
 */
describe('bench: startup (smoke)', function () {
  this.timeout(120_000);

  it('times both servers to their first /health on both dialects', async () => {
    const lines: string[] = [];
    const rows = await runStartupBench({ rounds: 2, dialects: ['sqlite', 'postgres'], log: (line) => lines.push(line), print: () => {} });
    expect(rows.map((row) => row.dialect)).to.deep.equal(['sqlite', 'postgres']);
    for (const row of rows) {
      for (const figure of [row.wallet_ms, row.bare_ms, row.wallet_cpu_ms, row.bare_cpu_ms]) expect(figure, JSON.stringify(row)).to.be.greaterThan(0);
      expect(row.ratio).to.be.closeTo(row.wallet_ms / row.bare_ms, 0.01);
      expect(row.verdict).to.match(/^(PASS|FAIL) \(≤ 1\.2×\)$/);
    }
    expect(lines.filter((line) => / round \d: wallet \d+ ms, bare \d+ ms$/.test(line))).to.have.length(4);
  });
});
