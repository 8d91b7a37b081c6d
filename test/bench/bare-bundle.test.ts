import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { expect } from 'chai';
import { REPO_ROOT } from '../harness/processes.js';
import { bareServerBundle } from './http/bare-bundle.js';

describe('bench: the bare server’s bundle', function () {
  this.timeout(60_000);

  it('each run bundles into a folder of its own inside the repository, with the scan worker beside the server, and removes only its own', async () => {
    const [first, second] = await Promise.all([bareServerBundle('request'), bareServerBundle('request')]);
    try {
      expect(dirname(first.server)).to.not.equal(dirname(second.server));
      for (const bundle of [first, second]) {
        // Inside the repository: the bundle leaves its npm dependencies as imports, resolved from node_modules.
        expect(dirname(bundle.server).startsWith(join(REPO_ROOT, 'test/bench/results/request-'))).to.equal(true);
        expect(existsSync(bundle.server)).to.equal(true);
        expect(existsSync(join(dirname(bundle.server), 'scan-worker.js'))).to.equal(true);
      }
      first.remove();
      expect(existsSync(dirname(first.server))).to.equal(false);
      expect(existsSync(second.server), 'the other run’s bundle is untouched').to.equal(true);
    } finally {
      first.remove();
      second.remove();
    }
  });
});
