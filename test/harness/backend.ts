import { createWalletBackend, type WalletBackend, type WalletBackendConfig, type WalletPlugin } from '@wallet/backend-core';
import { captureLogger, ManualClock, type CapturedLogger } from '@wallet/backend-core/testing';
import { TestClient } from './client.js';
import { freshPostgresUrl } from './postgres.js';
import { freshSqliteUrl } from './sqlite.js';

export type DialectName = 'sqlite' | 'postgres';
export const DIALECTS: readonly DialectName[] = ['sqlite', 'postgres'];

/** Fixed, distinct test secrets (never used outside tests). */
export const TEST_SECRETS = {
  jwtSecret: 'test-jwt-secret-0123456789abcdef0123456789abcdef',
  pepperSecret: 'test-pepper-secret-0123456789abcdef0123456789abcd',
  ipHashSalt: 'test-ip-salt-0123456789abcdef0123456789abcdef0123',
  adminKeyIntegritySecret: 'test-admin-integrity-0123456789abcdef0123456789ab',
  adminSessionSecret: 'test-admin-session-0123456789abcdef0123456789abcd',
} as const;

export const TEST_PUBLIC_API_URL = 'https://wallet.example.test';

export async function freshDatabaseUrl(dialect: DialectName): Promise<string> {
  return dialect === 'sqlite' ? freshSqliteUrl() : freshPostgresUrl();
}

export interface TestBackendOptions {
  plugins?: WalletPlugin[];
  /** Settings to override on top of the test defaults. */
  settings?: Partial<WalletBackendConfig>;
  /** Share a database with another backend (two-process tests). */
  databaseUrl?: string;
  /** Use the system clock instead of a ManualClock. */
  realClock?: boolean;
  /** Listen on loopback (default true). */
  listen?: boolean;
  /** Start the scheduler (default false: tests run tasks with `scheduler.runNow`). */
  scheduler?: boolean;
}

export interface TestBackend {
  dialect: DialectName;
  backend: WalletBackend;
  client: TestClient;
  clock: ManualClock;
  logger: CapturedLogger;
  databaseUrl: string;
  close(): Promise<void>;
}

/** A migrated backend on a fresh database of `dialect`, listening on a loopback port. */
export async function createTestBackend(dialect: DialectName, options: TestBackendOptions = {}): Promise<TestBackend> {
  const clock = new ManualClock();
  const logger = captureLogger();
  const databaseUrl = options.databaseUrl ?? (await freshDatabaseUrl(dialect));
  const backend = await createWalletBackend({
    publicApiUrl: TEST_PUBLIC_API_URL,
    databaseUrl,
    nodeEnv: 'test',
    rateLimitMax: 100_000,
    ...TEST_SECRETS,
    ...(options.realClock ? {} : { clock }),
    logger,
    plugins: options.plugins ?? [],
    schedulerEnabled: options.scheduler ?? false,
    ...options.settings,
  });
  await backend.migrate();
  const { url } = await backend.start(options.listen === false ? {} : { port: 0 });
  return {
    dialect,
    backend,
    client: new TestClient(url ?? 'http://invalid.test'),
    clock,
    logger,
    databaseUrl,
    close: () => backend.close(),
  };
}

/**
 * Runs `suite` once per dialect, as `title [sqlite]` and `title [postgres]`. Neither dialect
 * is ever skipped: an unreachable Postgres fails the run.
 */
export function eachDialect(title: string, suite: (dialect: DialectName) => void): void {
  for (const dialect of DIALECTS) describe(`${title} [${dialect}]`, () => suite(dialect));
}

/**
 * A fresh backend for every test of the enclosing describe, closed after it. Read its fields
 * inside `it` (they are replaced before each test).
 */
export function useTestBackend(dialect: DialectName, options: TestBackendOptions | (() => TestBackendOptions) = {}): TestBackend {
  const holder = {} as TestBackend;
  beforeEach(async () => {
    // A function is read per test: settings that name a fake's URL exist only once it started.
    Object.assign(holder, await createTestBackend(dialect, typeof options === 'function' ? options() : options));
  });
  afterEach(async () => {
    await holder.close?.();
  });
  return holder;
}
