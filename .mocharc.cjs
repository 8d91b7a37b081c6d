// Tests run straight from TypeScript sources: tsx compiles on the fly and the `source`
// export condition points workspace packages at their src/ instead of dist/. The spec list is
// in package.json's test scripts, so `npx mocha test/some.test.ts` runs just that file.
module.exports = {
  'node-option': ['import=tsx', 'conditions=source'],
  require: ['test/harness/root-hooks.ts'],
  timeout: 30000,
  slow: 1000,
  reporter: 'spec',
};
