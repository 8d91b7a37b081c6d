import type { Knex } from 'knex';
import type { DialectName } from '../harness/index.js';

/**
 * A failure inside the activation transaction, between consuming the invoice and extending
 * premium_until: the users row refuses the premium_until update until `allowPremiumUpdates`.
 */
export async function refusePremiumUpdates(dialect: DialectName, knex: Knex): Promise<void> {
  if (dialect === 'sqlite') {
    await knex.raw(`CREATE TRIGGER premium_boom BEFORE UPDATE OF premium_until ON users BEGIN SELECT RAISE(ABORT, 'boom'); END`);
  } else {
    await knex.raw(`CREATE FUNCTION premium_boom() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'boom'; END $$`);
    await knex.raw(`CREATE TRIGGER premium_boom BEFORE UPDATE OF premium_until ON users FOR EACH ROW EXECUTE FUNCTION premium_boom()`);
  }
}

/** Drops what `refusePremiumUpdates` created. */
export async function allowPremiumUpdates(dialect: DialectName, knex: Knex): Promise<void> {
  if (dialect === 'sqlite') {
    await knex.raw('DROP TRIGGER premium_boom');
  } else {
    await knex.raw('DROP TRIGGER premium_boom ON users');
    await knex.raw('DROP FUNCTION premium_boom()');
  }
}
