// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const driverImports = [
  { name: 'pg', message: 'Dialect code belongs in core/src/storage.' },
  { name: 'better-sqlite3', message: 'Dialect code belongs in core/src/storage.' },
];

/**
 * A concern folder's index.ts is its only public face (docs/architecture.md#layering): a relative
 * import that reaches into another folder must name its index.js (`./x/index.js`, `../x/index.js`,
 * `../../x/index.js` for sub-concern folders such as chains/grin); files two levels up are off
 * limits. `alsoAllowed` names the other modules a file may reach for.
 */
const faceImports = (alsoAllowed = []) => ({
  paths: driverImports,
  patterns: [
    { regex: `^(\\./|(\\.\\./)+)[^./][^/]*/(?!(${['index', ...alsoAllowed].join('|')})\\.js$).+$`, message: 'Import another concern through its index.ts.' },
    { regex: '^(\\.\\./){2,}[^/]+$', message: 'Import another concern through its index.ts.' },
  ],
});

export default tseslint.config(
  { ignores: ['**/dist/**', 'coverage/**', 'node_modules/**', 'data/**', '.stryker-tmp/**', 'reports/**', '.node/**', 'release/**', 'test/bench/results/**', 'eslint.config.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', Buffer: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // Dialect knowledge lives in storage/ only; time comes from the injected clock, never from
    // SQL now() (docs/architecture.md#storage, #time).
    files: ['packages/*/src/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: "Literal[value=/\\bnow\\(\\)/i]", message: 'Use the injected clock, not SQL now().' },
      ],
      'no-restricted-imports': ['error', faceImports()],
    },
  },
  {
    // The composition root alone builds core's own feature plugins, from each feature's plugin.ts:
    // a feature's index.ts never re-exports its plugin, so nothing the contract imports can import
    // the contract back (docs/architecture.md#import-cycles).
    files: ['packages/core/src/composition/core-features.ts'],
    rules: { 'no-restricted-imports': ['error', faceImports(['plugin'])] },
  },
  {
    files: ['test/**/*.ts'],
    // Response bodies are parsed JSON; tests assert on their shape directly.
    rules: { '@typescript-eslint/no-unused-expressions': 'off', '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // The example web wallet's page script runs in a browser.
    files: ['examples/web-wallet/app.js'],
    languageOptions: { globals: { document: 'readonly', location: 'readonly', crypto: 'readonly' } },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
);
