// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/dist/**', 'coverage/**', 'node_modules/**', 'data/**', '.stryker-tmp/**', 'reports/**', '.node/**', 'release/**', 'eslint.config.js'] },
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
    // DESIGN §4 / STYLE G6: dialect knowledge lives in storage/ only; time comes from the
    // injected clock, never from SQL now().
    files: ['packages/*/src/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: "Literal[value=/\\bnow\\(\\)/i]", message: 'Use the injected clock, not SQL now().' },
      ],
      'no-restricted-imports': ['error', {
        paths: [
          { name: 'pg', message: 'Dialect code belongs in core/src/storage.' },
          { name: 'better-sqlite3', message: 'Dialect code belongs in core/src/storage.' },
        ],
        // STYLE G1: a concern folder's index.ts is its only public face.
        patterns: [
          // A relative import that reaches into another folder must name its index.js: `./x/index.js`,
          // `../x/index.js`, `../../x/index.js` (sub-concern folders such as chains/grin); files two levels up are off limits.
          { regex: '^(\\./|(\\.\\./)+)[^./][^/]*/(?!index\\.js$).+$', message: 'Import another concern through its index.ts.' },
          { regex: '^(\\.\\./){2,}[^/]+$', message: 'Import another concern through its index.ts.' },
        ],
      }],
    },
  },
  {
    files: ['test/**/*.ts'],
    // Response bodies are parsed JSON; tests assert on their shape directly.
    rules: { '@typescript-eslint/no-unused-expressions': 'off', '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
);
