import { expect } from 'chai';
import * as main from '@wallet/backend-core';
import * as database from '@wallet/backend-core/database';

describe('core: the light database entry (@wallet/backend-core/database)', () => {
  it('exports the main entry’s own functions and values, not copies', () => {
    const names = Object.keys(database);
    expect(names).to.include.members(['connect', 'parseDatabaseUrl', 'databaseFailureOf', 'readOptionalTime', 'appliedMigrations', 'coreMigrations', 'ledgerIdOf', 'createJsonLogger', 'silentLogger', 'readSecretFiles']);
    for (const name of names) expect((main as Record<string, unknown>)[name], name).to.equal((database as Record<string, unknown>)[name]);
  });
});
