import type { ChainRegistry } from '../chains/index.js';
import type { Clock } from '../clock/index.js';
import { OPENAPI_VERSION } from '../http/index.js';
import { LEDGER_TABLE, readTime, type Database } from '../storage/index.js';
import { checkReadiness } from '../system/index.js';
import { coreVersion } from '../version/index.js';

/** How long a chain's tip height may take before the report calls its upstream not answering. */
const CHAIN_PROBE_MS = 2_000;

export interface SystemReportDeps {
  db: Database;
  clock: Clock;
  chains: ChainRegistry;
  startedAt: Date;
  expectedMigrations(): readonly string[];
  features(): ReadonlyArray<{ name: string; version: string | null }>;
  capabilities(): Record<string, unknown>;
}

/**
 * What the operator console shows about the running service: versions, the database and its
 * migrations, every feature with what it serves, each chain's upstream as answering or not
 * (its tip height), and readiness with the reason when not ready. Nothing here is a secret or
 * a setting's value (those are in the settings sections and the environment).
 */
export async function systemReport(deps: SystemReportDeps) {
  const { db, clock } = deps;
  const [readiness, ledger, heights] = await Promise.all([
    checkReadiness(db.knex, deps.expectedMigrations()),
    db.knex(LEDGER_TABLE).select('id', 'applied_at').orderBy('applied_at').orderBy('id') as Promise<Array<{ id: string; applied_at: unknown }>>,
    deps.chains.heights(CHAIN_PROBE_MS),
  ]);
  const applied = new Set(ledger.map((row) => row.id));
  const enabled = new Set<string>(deps.chains.enabled);
  return {
    versions: { core: coreVersion(), api: OPENAPI_VERSION, node: process.versions.node },
    database: { dialect: db.dialect.kind },
    started_at: deps.startedAt.toISOString(),
    uptime_sec: Math.max(0, Math.floor((clock.now().getTime() - deps.startedAt.getTime()) / 1000)),
    readiness: readiness === null ? { ready: true, check: null, message: null } : { ready: false, check: readiness.check, message: readiness.message },
    migrations: {
      applied: ledger.map((row) => ({ id: row.id, applied_at: readTime(row.applied_at).toISOString() })),
      pending: deps.expectedMigrations().filter((id) => !applied.has(id)),
    },
    features: deps.features().map((feature) => ({ ...feature })),
    capabilities: deps.capabilities(),
    chains: Object.entries(heights).map(([asset, height]) => ({
      asset,
      enabled: enabled.has(asset),
      upstream: !enabled.has(asset) ? 'disabled' : height === null ? 'not_answering' : 'answering',
      height,
    })),
  };
}
