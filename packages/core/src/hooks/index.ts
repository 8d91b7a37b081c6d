import type { Knex } from 'knex';

/**
 * Erasing a user: each handler removes or detaches what its owner keeps about the user, inside
 * the erasure's transaction. Failure policy: a handler that throws aborts the whole erasure
 * (the transaction rolls back; the sweeper retries), so no half-erased user exists.
 */
export type UserErasureHandler = (trx: Knex.Transaction, userId: string) => Promise<void>;
/** Exporting a user's data: each handler returns its owner's section; a throw fails the export. */
export type UserExportHandler = (userId: string) => Promise<Record<string, unknown>>;

/**
 * What the operator console shows about a user, in its owner's own section: states, counts and
 * times (`{ sent: 3, received: 1 }`), never a peppered or hashed value, a secret or a raw address.
 */
export type UserSummaryHandler = (userId: string) => Promise<Record<string, unknown>>;

/**
 * The named, typed extension points between features
 * (docs/architecture.md#the-plugin-contract): no matcher over every
 * endpoint, no untyped payloads. Handlers run in registration order (core, then plugins).
 */
export class HookRegistry {
  private readonly erasure: Array<{ owner: string; handler: UserErasureHandler }> = [];
  private readonly exporters: Array<{ owner: string; handler: UserExportHandler }> = [];
  private readonly summaries: Array<{ owner: string; handler: UserSummaryHandler }> = [];

  onUserErasure(owner: string, handler: UserErasureHandler): void {
    this.erasure.push({ owner, handler });
  }

  onUserExport(owner: string, handler: UserExportHandler): void {
    this.exporters.push({ owner, handler });
  }

  onUserSummary(owner: string, handler: UserSummaryHandler): void {
    this.summaries.push({ owner, handler });
  }

  async runUserErasure(trx: Knex.Transaction, userId: string): Promise<void> {
    for (const { handler } of this.erasure) await handler(trx, userId);
  }

  /** Every owner's section, keyed by owner name. */
  collectUserExport(userId: string): Promise<Record<string, Record<string, unknown>>> {
    return sectionsOf(this.exporters, userId);
  }

  /** Every owner's summary section of a user, keyed by owner name (the admin account view). */
  collectUserSummary(userId: string): Promise<Record<string, Record<string, unknown>>> {
    return sectionsOf(this.summaries, userId);
  }
}

/** Each owner's handler's answer for the user, in registration order, keyed by owner name. */
async function sectionsOf(
  handlers: ReadonlyArray<{ owner: string; handler: (userId: string) => Promise<Record<string, unknown>> }>,
  userId: string,
): Promise<Record<string, Record<string, unknown>>> {
  const sections: Record<string, Record<string, unknown>> = {};
  for (const { owner, handler } of handlers) sections[owner] = await handler(userId);
  return sections;
}
