import { expect } from 'chai';
import { captureLogger, ManualClock } from '@wallet/backend-core/testing';
import { createPrometheusMetrics, STATE_CACHE_MS, type StateSample } from '../../../packages/core/src/metrics/index.js';
import { parseExposition, samplesOf, valueOf } from './exposition.js';

/** A read the test answers by hand, counting how many were started. */
function controlledRead() {
  const pending: Array<(samples: StateSample[]) => void> = [];
  return {
    started: () => pending.length,
    answer: (samples: StateSample[]) => pending.shift()!(samples),
    read: () => new Promise<readonly StateSample[]>((resolve) => pending.push(resolve)),
  };
}

describe('metrics: state gauge reads (no database)', () => {
  const BUDGET_MS = 100;
  const metricsWith = (clock = new ManualClock(), logger = captureLogger()) => createPrometheusMetrics({ pool: () => null, apiVersion: 'test', clock, logger, stateReadBudgetMs: BUDGET_MS });

  it('a read that never answers costs the scrape its budget, not the scrape; the next scrape joins it instead of starting another', async () => {
    const logger = captureLogger();
    const metrics = metricsWith(new ManualClock(), logger);
    const slow = controlledRead();
    metrics.addStateGauge({ name: 'wallet_slow', help: 'Slow.', read: slow.read });
    metrics.addStateGauge({ name: 'wallet_fast', help: 'Fast.', read: () => Promise.resolve([{ value: 3 }]) });
    const started = performance.now();
    let samples = parseExposition(await metrics.render());
    expect(performance.now() - started).to.be.lessThan(BUDGET_MS * 10);
    expect(samplesOf(samples, 'wallet_slow')).to.deep.equal([]);
    expect(valueOf(samples, 'wallet_fast')).to.equal(3);
    expect(valueOf(samples, 'wallet_state_read_failures_total', { gauge: 'wallet_slow' })).to.equal(1);
    expect(logger.lines.find((line) => line.gauge === 'wallet_slow')?.error).to.equal(`no answer within ${BUDGET_MS} ms`);
    samples = parseExposition(await metrics.render());
    expect(slow.started()).to.equal(1);
    expect(valueOf(samples, 'wallet_state_read_failures_total', { gauge: 'wallet_slow' })).to.equal(2);
    // Once it answers, the answer is served (and cached) like any other.
    slow.answer([{ value: 9 }]);
    samples = parseExposition(await metrics.render());
    expect(valueOf(samples, 'wallet_slow')).to.equal(9);
    expect(slow.started()).to.equal(0);
  });

  it('reuses a read for STATE_CACHE_MS by the backend clock, then reads again; a memory gauge is read every scrape', async () => {
    const clock = new ManualClock();
    const metrics = metricsWith(clock);
    let reads = 0;
    let memoryReads = 0;
    metrics.addStateGauge({ name: 'wallet_counted', help: 'Counted.', read: () => Promise.resolve([{ value: (reads += 1) }]) });
    metrics.addStateGauge({ name: 'wallet_memory', help: 'Memory.', memory: true, read: () => Promise.resolve([{ value: (memoryReads += 1) }]) });
    expect(valueOf(parseExposition(await metrics.render()), 'wallet_counted')).to.equal(1);
    clock.advance(STATE_CACHE_MS - 1);
    const cached = parseExposition(await metrics.render());
    expect(valueOf(cached, 'wallet_counted')).to.equal(1);
    expect(valueOf(cached, 'wallet_memory')).to.equal(2);
    clock.advance(1);
    expect(valueOf(parseExposition(await metrics.render()), 'wallet_counted')).to.equal(2);
    expect(STATE_CACHE_MS).to.equal(10_000);
  });

  it('while every pool connection is taken, database gauges keep their last values instead of queueing; memory gauges are read', async () => {
    const clock = new ManualClock();
    let pool = { used: 0, free: 2, max: 2, pendingAcquires: 0 };
    const metrics = createPrometheusMetrics({ pool: () => pool, apiVersion: 'test', clock, stateReadBudgetMs: BUDGET_MS });
    let reads = 0;
    let memoryReads = 0;
    metrics.addStateGauge({ name: 'wallet_counted', help: 'Counted.', read: () => Promise.resolve([{ value: (reads += 1) }]) });
    metrics.addStateGauge({ name: 'wallet_memory', help: 'Memory.', memory: true, read: () => Promise.resolve([{ value: (memoryReads += 1) }]) });
    expect(valueOf(parseExposition(await metrics.render()), 'wallet_counted')).to.equal(1);
    for (const busy of [{ used: 2, free: 0, max: 2, pendingAcquires: 0 }, { used: 1, free: 0, max: 2, pendingAcquires: 3 }]) {
      pool = busy;
      clock.advance(STATE_CACHE_MS);
      const samples = parseExposition(await metrics.render());
      expect(valueOf(samples, 'wallet_counted')).to.equal(1);
      expect(valueOf(samples, 'wallet_db_pool_pending_acquires')).to.equal(busy.pendingAcquires);
      expect(valueOf(samples, 'wallet_state_read_failures_total', { gauge: 'wallet_counted' })).to.equal(undefined);
    }
    expect(reads).to.equal(1);
    expect(memoryReads).to.equal(3);
    pool = { used: 1, free: 1, max: 2, pendingAcquires: 0 };
    expect(valueOf(parseExposition(await metrics.render()), 'wallet_counted')).to.equal(2);
  });

  it('samples whose labels are not the declared ones, or that are not numbers, are refused like a failed read', async () => {
    const metrics = metricsWith();
    metrics.addStateGauge({ name: 'wallet_labelled', help: 'Labelled.', labelNames: ['status'], read: () => Promise.resolve<StateSample[]>([{ labels: { status: 'a' }, value: 1 }, { labels: { state: 'b' }, value: 2 }]) });
    metrics.addStateGauge({ name: 'wallet_nan', help: 'NaN.', read: () => Promise.resolve([{ value: Number.NaN }]) });
    metrics.addStateGauge({ name: 'wallet_good', help: 'Good.', labelNames: ['status'], read: () => Promise.resolve([{ labels: { status: 'x"y\\z' }, value: 4 }]) });
    const text = await metrics.render();
    const samples = parseExposition(text);
    expect(samplesOf(samples, 'wallet_labelled')).to.deep.equal([]);
    expect(samplesOf(samples, 'wallet_nan')).to.deep.equal([]);
    expect(valueOf(samples, 'wallet_state_read_failures_total', { gauge: 'wallet_labelled' })).to.equal(1);
    expect(valueOf(samples, 'wallet_state_read_failures_total', { gauge: 'wallet_nan' })).to.equal(1);
    // Label values are escaped by the exposition's rules.
    expect(text).to.include('wallet_good{status="x\\"y\\\\z"} 4');
    expect(text).to.include('# TYPE wallet_labelled gauge');
  });
});
