import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { adminErrors, chainErrors, coreErrors, directoryErrors, gateErrors, identityErrors, processorErrors, setupErrors, type ErrorSpec } from '@wallet/backend-core';
import { grinRelayErrors } from '@wallet/grin-relay';
import { erasureErrors } from '@wallet/erasure';
import { premiumErrors } from '@wallet/premium';
import { tipErrors } from '@wallet/tips';
import { REPO_ROOT } from '../../harness/index.js';

/** Every catalogue the packages declare, by section title in docs/errors.md. */
const CATALOGUES: Record<string, Readonly<Record<string, ErrorSpec>>> = {
  Core: coreErrors.specs,
  Identity: identityErrors.specs,
  Directory: directoryErrors.specs,
  Gates: gateErrors.specs,
  Processor: processorErrors.specs,
  Chains: chainErrors.specs,
  'Grin relay': grinRelayErrors.specs,
  Tips: tipErrors.specs,
  Premium: premiumErrors.specs,
  Erasure: erasureErrors.specs,
  Admin: adminErrors.specs,
  Setup: setupErrors.specs,
};

/** `| \`code\` | 400 | … |` rows, grouped under their `## Section` heading. */
function documentedCodes(): Record<string, Map<string, number>> {
  const sections: Record<string, Map<string, number>> = {};
  let current: Map<string, number> | undefined;
  for (const line of readFileSync(join(REPO_ROOT, 'docs/errors.md'), 'utf8').split('\n')) {
    const heading = /^## (.+)$/.exec(line);
    if (heading) sections[heading[1]!.trim()] = current = new Map();
    const row = /^\| `([a-z0-9_]+)` \| (\d{3}) \|/.exec(line);
    if (row && current) current.set(row[1]!, Number(row[2]));
  }
  return sections;
}

/** Fastify's rule: code ↔ docs checked in both directions (docs/architecture.md#errors). */
describe('error catalogue ↔ docs/errors.md', () => {
  const documented = documentedCodes();

  for (const [section, specs] of Object.entries(CATALOGUES)) {
    it(`${section}: every code is documented with its status`, () => {
      const rows = documented[section];
      expect(rows, `section "## ${section}"`).to.not.equal(undefined);
      for (const [code, spec] of Object.entries(specs)) expect(rows!.get(code), code).to.equal(spec.status);
    });

    it(`${section}: every documented code exists`, () => {
      for (const code of documented[section]?.keys() ?? []) expect(specs, code).to.have.property(code);
    });
  }

  it('documents no section without a catalogue', () => {
    expect(Object.keys(documented).sort()).to.deep.equal(Object.keys(CATALOGUES).sort());
  });
});
