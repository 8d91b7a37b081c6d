// StrykerJS configuration for `npm run test:mutation` (see docs/testing.md, "Mutation testing").
// Normally started through test/mutation/run.ts, which picks the files to mutate and the spec
// files that exercise them and passes them in through the environment below; a bare
// `npx stryker run` mutates nothing useful.
//
// - The mocha runner loads the same setup as .mocharc.cjs: tsx and the `source` export condition
//   as node arguments of the test-runner process (mocha's `node-option` does not apply to
//   in-process runs), the root hooks through `mochaOptions.config`.
// - Stryker mutates a sandbox copy of the project; test/mutation/sandbox-resolve.mjs makes
//   `@wallet/*` imports resolve into that copy instead of the pristine checkout, so the checkout
//   is never modified (no inPlace) and an interrupted run leaves nothing behind but .stryker-tmp/.
const env = (name, fallback) => process.env[name] ?? fallback;
const list = (text) => text.split(',').map((item) => item.trim()).filter(Boolean);

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'mocha',
  plugins: ['@stryker-mutator/mocha-runner'],
  mutate: list(env('WALLET_MUTATE', '')),
  mochaOptions: {
    config: '.mocharc.cjs',
    spec: list(env('WALLET_MUTATION_SPEC', 'test/core/**/*.test.ts,test/grin-relay/**/*.test.ts')),
  },
  testRunnerNodeArgs: ['--import', 'tsx', '--conditions=wallet-source', '--import', './test/mutation/sandbox-resolve.mjs'],
  coverageAnalysis: 'perTest',
  // Mutants in module-level code (constants, top-level regexes) need a fresh process each;
  // they are kept: a top-level regex is exactly the kind of check this run is for.
  // `--ignore-static` of test/mutation/run.ts (WALLET_MUTATION_IGNORE_STATIC=1) skips them for a
  // quick run; they are then reported as ignored, not counted.
  ignoreStatic: env('WALLET_MUTATION_IGNORE_STATIC', '') === '1',
  concurrency: Number(env('WALLET_MUTATION_CONCURRENCY', '1')),
  timeoutMS: 10_000,
  dryRunTimeoutMinutes: 20,
  inPlace: false,
  symlinkNodeModules: true,
  ignorePatterns: ['coverage', 'reports', '**/dist', 'data', 'test/bench/results', '*.db', '*.db-wal', '*.db-shm', '*.log'],
  reporters: ['clear-text', 'progress-append-only', 'json', 'html'],
  jsonReporter: { fileName: env('WALLET_MUTATION_JSON', 'reports/mutation/mutation.json') },
  htmlReporter: { fileName: env('WALLET_MUTATION_HTML', 'reports/mutation/mutation.html') },
  // 90% for the run as a whole; test/mutation/run.ts turns this off and applies 90% per file,
  // after taking out the survivors listed in test/mutation/equivalent-mutants.json.
  thresholds: { high: 95, low: 90, break: env('WALLET_MUTATION_BREAK', '') === 'off' ? null : 90 },
  cleanTempDir: true,
  tempDirName: '.stryker-tmp',
};
