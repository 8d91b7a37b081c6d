import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const DASHBOARD_PATH = fileURLToPath(new URL('../../../deploy/grafana-dashboard.json', import.meta.url));
export const RULES_PATH = fileURLToPath(new URL('../../../deploy/prometheus-rules.yml', import.meta.url));
export const RULES_TEST_PATH = fileURLToPath(new URL('../../../deploy/prometheus-rules.test.yml', import.meta.url));

export interface DashboardPanel {
  id?: unknown;
  type?: unknown;
  title?: unknown;
  gridPos?: { h?: unknown; w?: unknown; x?: unknown; y?: unknown };
  datasource?: unknown;
  targets?: Array<{ refId?: unknown; expr?: unknown }>;
  panels?: DashboardPanel[];
}

export function dashboard(): { title?: unknown; uid?: unknown; schemaVersion?: unknown; panels?: DashboardPanel[]; templating?: { list?: Array<{ name?: unknown; type?: unknown }> } } {
  return JSON.parse(readFileSync(DASHBOARD_PATH, 'utf8')) as ReturnType<typeof dashboard>;
}

/** Every panel, rows' nested panels included. */
export function panelsOf(panels: DashboardPanel[] = []): DashboardPanel[] {
  return panels.flatMap((panel) => [panel, ...panelsOf(panel.panels)]);
}

export function dashboardExprs(): string[] {
  return panelsOf(dashboard().panels).flatMap((panel) => (panel.targets ?? []).map((target) => String(target.expr)));
}

/** The rules' expressions; each is written on one line (`expr: …`), which the deploy test checks. */
export function ruleExprs(): string[] {
  return [...readFileSync(RULES_PATH, 'utf8').matchAll(/^\s*expr:\s*(.+)$/gm)].map((match) => match[1]!.trim());
}

/** The alert names of the rules (`- alert: Name`), in file order. */
export function ruleAlerts(): string[] {
  return [...readFileSync(RULES_PATH, 'utf8').matchAll(/^\s*- alert:\s*(\S+)$/gm)].map((match) => match[1]!);
}

