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
    let fastReads = 0;
    metrics.addStateGauge({ name: 'wallet_slow', help: 'Slow.', read: slow.read });
    metrics.addStateGauge({ name: 'wallet_fast', help: 'Fast.', read: () => Promise.resolve([{ value: (fastReads += 1) + 2 }]) });
    metrics.addStateGauge({ name: 'wallet_memory', help: 'Memory.', memory: true, read: () => Promise.resolve([{ value: 5 }]) });
    const started = performance.now();
    let samples = parseExposition(await metrics.render());
    expect(performance.now() - started).to.be.lessThan(BUDGET_MS * 10);
    expect(samplesOf(samples, 'wallet_slow')).to.deep.equal([]);
    expect(valueOf(samples, 'wallet_state_read_failures_total', { gauge: 'wallet_slow' })).to.equal(1);
    expect(logger.lines.find((line) => line.gauge === 'wallet_slow')?.error).to.equal(`no answer within ${BUDGET_MS} ms`);
    // The budget is the scrape's: the slow read spent it, so the next database gauge is not read (left out and counted); memory gauges are.
    expect(fastReads).to.equal(0);
    expect(samplesOf(samples, 'wallet_fast')).to.deep.equal([]);
    expect(valueOf(samples, 'wallet_state_read_failures_total', { gauge: 'wallet_fast' })).to.equal(1);
    expect(logger.lines.find((line) => line.gauge === 'wallet_fast')?.error).to.equal(`not read: this scrape's ${BUDGET_MS} ms were spent on earlier gauges`);
    expect(valueOf(samples, 'wallet_memory')).to.equal(5);
    samples = parseExposition(await metrics.render());
    expect(slow.started()).to.equal(1);
    expect(valueOf(samples, 'wallet_state_read_failures_total', { gauge: 'wallet_slow' })).to.equal(2);
    // Once it answers, the answer is served (and cached) like any other, and the rest are read again.
    slow.answer([{ value: 9 }]);
    samples = parseExposition(await metrics.render());
    expect(valueOf(samples, 'wallet_slow')).to.equal(9);
    expect(valueOf(samples, 'wallet_fast')).to.equal(3);
    expect(slow.started()).to.equal(0);
  });

  it('reads the database gauges one after another, never two at once', async () => {
    const metrics = createPrometheusMetrics({ pool: () => null, apiVersion: 'test', clock: new ManualClock(), stateReadBudgetMs: 5_000 });
    const first = controlledRead();
    const second = controlledRead();
    metrics.addStateGauge({ name: 'wallet_first', help: 'First.', read: first.read });
    metrics.addStateGauge({ name: 'wallet_second', help: 'Second.', read: second.read });
    const rendering = metrics.render();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect([first.started(), second.started()]).to.deep.equal([1, 0]);
    first.answer([{ value: 1 }]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect([first.started(), second.started()]).to.deep.equal([0, 1]);
    second.answer([{ value: 2 }]);
    const samples = parseExposition(await rendering);
    expect([valueOf(samples, 'wallet_first'), valueOf(samples, 'wallet_second')]).to.deep.equal([1, 2]);
  });

  it('the database gauges share one budget: a scrape with a slow read and a hung one ends within it', async () => {
    const budget = 300;
    const metrics = createPrometheusMetrics({ pool: () => null, apiVersion: 'test', clock: new ManualClock(), stateReadBudgetMs: budget });
    const hung = controlledRead();
    metrics.addStateGauge({ name: 'wallet_slowish', help: 'Slowish.', read: () => new Promise((resolve) => setTimeout(() => resolve([{ value: 1 }]), budget * 0.6)) });
    metrics.addStateGauge({ name: 'wallet_hung', help: 'Hung.', read: hung.read });
    const started = performance.now();
    const samples = parseExposition(await metrics.render());
    // Each on a budget of its own would take 1.6 budgets.
    expect(performance.now() - started).to.be.lessThan(budget * 1.4);
    expect(valueOf(samples, 'wallet_slowish')).to.equal(1);
    expect(hung.started()).to.equal(1);
    expect(samplesOf(samples, 'wallet_hung')).to.deep.equal([]);
    expect(valueOf(samples, 'wallet_state_read_failures_total', { gauge: 'wallet_hung' })).to.equal(1);
    hung.answer([]);
  });

  it('looks at the pool again before each database read: a pool that filled up meanwhile keeps the rest at their last values', async () => {
    const clock = new ManualClock();
    const free = { used: 0, free: 2, max: 2, pendingAcquires: 0 };
    let pool = free;
    const metrics = createPrometheusMetrics({ pool: () => pool, apiVersion: 'test', clock, stateReadBudgetMs: BUDGET_MS });
    let fill = false;
    let laterReads = 0;
    metrics.addStateGauge({
      name: 'wallet_first',
      help: 'First.',
      read: () => {
        if (fill) pool = { used: 2, free: 0, max: 2, pendingAcquires: 1 };
        return Promise.resolve([{ value: 1 }]);
      },
    });
    metrics.addStateGauge({ name: 'wallet_later', help: 'Later.', read: () => Promise.resolve([{ value: (laterReads += 1) }]) });
    expect(valueOf(parseExposition(await metrics.render()), 'wallet_later')).to.equal(1);
    fill = true;
    clock.advance(STATE_CACHE_MS);
    const samples = parseExposition(await metrics.render());
    expect(laterReads).to.equal(1);
    expect(valueOf(samples, 'wallet_later')).to.equal(1);
    expect(valueOf(samples, 'wallet_state_read_failures_total', { gauge: 'wallet_later' })).to.equal(undefined);
    pool = free;
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
