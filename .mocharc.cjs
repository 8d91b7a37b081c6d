// Tests run straight from TypeScript sources: tsx compiles on the fly and the `wallet-source`
// export condition (named for this project: some dependencies publish a `source` condition
// pointing at files they do not ship) points workspace packages at their src/ instead of dist/. The spec list is
// in package.json's test scripts, so `npx mocha test/some.test.ts` runs just that file.
module.exports = {
  'node-option': ['import=tsx', 'conditions=wallet-source'],
  require: ['test/harness/root-hooks.ts'],
  timeout: 30000,
  slow: 1000,
  reporter: 'spec',
};
