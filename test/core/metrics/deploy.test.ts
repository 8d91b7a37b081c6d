import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { seriesNamesIn, promtool, requirePromtool } from './exposition.js';
import { readDoc } from '../../docs/doc-snippets.js';
import { dashboard, dashboardExprs, panelsOf, ruleAlerts, RULES_PATH, RULES_TEST_PATH, ruleExprs } from './deploy-files.js';

/** The Grafana panel types the dashboard may use (all built in, no plugin to install). */
const PANEL_TYPES = ['row', 'stat', 'table', 'timeseries'];

describe('deploy: Prometheus rules and the Grafana dashboard', () => {
  it('the rules pass `promtool check rules`', function () {
    requirePromtool(this);
    const check = promtool(['check', 'rules', RULES_PATH]);
    expect(check.status, check.output).to.equal(0);
    expect(check.output).to.match(/SUCCESS: 10 rules found/);
  });

  it('the rules pass their unit tests (`promtool test rules`)', function () {
    requirePromtool(this);
    const run = promtool(['test', 'rules', RULES_TEST_PATH]);
    expect(run.status, run.output).to.equal(0);
    expect(run.output).to.include('SUCCESS');
    // Every alert has a unit test.
    const alerts = ruleAlerts();
    const tested = new Set([...readFileSync(RULES_TEST_PATH, 'utf8').matchAll(/^\s*alertname:\s*(\S+)$/gm)].map((match) => match[1]));
    expect(alerts.filter((alert) => !tested.has(alert))).to.deep.equal([]);
  });

  it("operators.md's alert table names every alert in the rules, and no other", () => {
    const alerts = ruleAlerts().sort();
    const docs = readDoc('operators.md');
    const documented = [...docs.matchAll(/^\| `(WalletBackend\w+)` \|/gm)].map((match) => match[1]!).sort();
    expect(documented).to.deep.equal(alerts);
  });

  it('every rule expression is on one line (what the series check reads) and names a series', () => {
    const text = readFileSync(RULES_PATH, 'utf8');
    expect(text).not.to.match(/expr:\s*[|>]/);
    const exprs = ruleExprs();
    expect(exprs).to.have.length(10);
    for (const expr of exprs) expect(seriesNamesIn(expr).size, expr).to.be.greaterThan(0);
  });

  it('the dashboard is a Grafana dashboard: unique panel ids, a grid position each, built-in panel types, queries on the chosen data source', () => {
    const board = dashboard();
    expect(board.title).to.equal('Wallet Backend');
    expect(board.uid).to.match(/^[a-z0-9-]{1,40}$/);
    expect(board.schemaVersion).to.be.a('number');
    expect(board.templating?.list?.map((variable) => [variable.name, variable.type])).to.deep.include(['datasource', 'datasource']);
    const panels = panelsOf(board.panels);
    const ids = panels.map((panel) => panel.id);
    expect(ids.every((id) => Number.isInteger(id))).to.equal(true);
    expect(new Set(ids).size).to.equal(ids.length);
    for (const panel of panels) {
      const where = `panel ${String(panel.id)} "${String(panel.title)}"`;
      expect(panel.title, where).to.be.a('string').that.is.not.empty;
      expect(PANEL_TYPES, where).to.include(panel.type);
      const grid = panel.gridPos ?? {};
      for (const key of ['h', 'w', 'x', 'y'] as const) expect(grid[key], `${where} gridPos.${key}`).to.be.a('number');
      expect((grid.x as number) + (grid.w as number), where).to.be.at.most(24);
      if (panel.type === 'row') continue;
      expect(panel.datasource, where).to.deep.equal({ type: 'prometheus', uid: '${datasource}' });
      expect(panel.targets, where).to.be.an('array').that.is.not.empty;
      const refIds = (panel.targets ?? []).map((target) => target.refId);
      expect(new Set(refIds).size, where).to.equal(refIds.length);
      for (const target of panel.targets ?? []) {
        expect(target.expr, where).to.be.a('string').that.is.not.empty;
        // Every query follows the job picker, so one dashboard serves several deployments.
        expect(target.expr, where).to.include('job=~"$job"');
      }
    }
    expect(dashboardExprs().length).to.be.greaterThan(20);
  });

  it('the series extractor finds names in the shapes the files use, and nothing else', () => {
    expect([...seriesNamesIn('histogram_quantile(0.99, sum by (route, le) (rate(wallet_http_request_duration_seconds_bucket{job=~"$job"}[$__rate_interval])))')]).to.deep.equal(['wallet_http_request_duration_seconds_bucket']);
    expect([...seriesNamesIn('sum(rate(a_total{status=~"5.."}[5m])) / clamp_min(sum(rate(b_total[5m])), 1e-9) and time() - max by (job) (c_seconds) > 86400 unless up == 0')].sort()).to.deep.equal(['a_total', 'b_total', 'c_seconds', 'up']);
  });
});
