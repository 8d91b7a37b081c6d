import { expect } from 'chai';
import { adminErrors, chainErrors, coreErrors, directoryErrors, gateErrors, identityErrors, processorErrors, setupErrors, type ErrorSpec } from '@wallet/backend-core';
import { grinRelayErrors } from '@wallet/grin-relay';
import { eachDialect, useTestBackend, type TestBackend, type TestBackendOptions, type TestResponse } from '../../harness/index.js';

/** Every catalogue the packages declare (the same list the docs/errors.md test walks). */
const CATALOGUES: Readonly<Record<string, ErrorSpec>>[] = [
  coreErrors.specs,
  identityErrors.specs,
  directoryErrors.specs,
  gateErrors.specs,
  processorErrors.specs,
  chainErrors.specs,
  grinRelayErrors.specs,
  adminErrors.specs,
  setupErrors.specs,
];

const TOO_MANY = Object.entries(Object.assign({}, ...CATALOGUES) as Record<string, ErrorSpec>)
  .filter(([, spec]) => spec.status === 429)
  .map(([code]) => code)
  .sort();

/** How to make each 429 happen: the settings of a fresh backend, then the requests. */
const TRIGGERS: Record<string, { settings: TestBackendOptions['settings']; provoke(t: TestBackend): Promise<TestResponse> }> = {
  rate_limited: {
    settings: { rateLimitMax: 1, rateLimitWindowSec: 60 },
    async provoke(t) {
      await t.client.post('/api/v1/auth/pow-challenge', {});
      return t.client.post('/api/v1/auth/pow-challenge', {});
    },
  },
  restore_limited: {
    settings: { restoreIpThreshold: 1, restoreFailThreshold: 5, restoreWindowSec: 600 },
    async provoke(t) {
      await t.client.post('/api/v1/auth/check-restore', { seed_fingerprint: '00112233' });
      return t.client.post('/api/v1/auth/check-restore', { seed_fingerprint: '00112233' });
    },
  },
};

/** docs/errors.md: every 429 carries a Retry-After header (seconds). */
describe('every 429 in the error catalogues', () => {
  it('has a trigger in this test (add one when you declare a new 429)', () => {
    expect(Object.keys(TRIGGERS).sort()).to.deep.equal(TOO_MANY);
  });
});

eachDialect('every 429 carries Retry-After', (dialect) => {
  for (const code of TOO_MANY) {
    const trigger = TRIGGERS[code];
    if (trigger === undefined) continue;
    describe(code, () => {
      const t = useTestBackend(dialect, { settings: trigger.settings });
      it(`${code} answers 429 with Retry-After in whole seconds`, async () => {
        const res = await trigger.provoke(t);
        expect(res.status, res.text).to.equal(429);
        expect(res.body.error.code).to.equal(code);
        const header = res.headers.get('retry-after');
        expect(header, 'Retry-After').to.match(/^[1-9]\d*$/);
      });
    });
  }
});
