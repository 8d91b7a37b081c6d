// Tests run straight from TypeScript sources: tsx compiles on the fly and the `source`
// export condition points workspace packages at their src/ instead of dist/.
module.exports = {
  spec: ['test/**/*.test.ts'],
  'node-option': ['import=tsx', 'conditions=source'],
  require: ['test/harness/root-hooks.ts'],
  timeout: 30000,
  slow: 1000,
  reporter: 'spec',
};
