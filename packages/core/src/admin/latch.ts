import type { Clock } from '../clock/index.js';
import type { Integrity } from '../crypto/index.js';
import { readOptionalTime, type Database, type Executor } from '../storage/index.js';

/** Persisted states; `fresh` (no row) and `tampered` (seal mismatch) are computed on read. */
export type SetupState = 'fresh' | 'uninitialized' | 'locked' | 'tampered';

interface StoredLatch {
  id: number;
  setup_state: string;
  bootstrap_completed_at: unknown;
  integrity_mac: string;
}

const DOMAIN = 'server_config';
const SINGLETON = 1;

/**
 * The first-run setup latch (spec › First-run setup latch): one sealed row. Bootstrap is allowed
 * only from `uninitialized`, and a row whose seal fails is `tampered`, which refuses the boot.
 */
export class SetupLatch {
  constructor(
    private readonly db: Database,
    private readonly integrity: Integrity,
    private readonly clock: Clock,
  ) {}

  async state(executor: Executor = this.db.knex): Promise<{ state: SetupState; bootstrapCompletedAt: Date | null }> {
    const row = (await executor('server_config').where({ id: SINGLETON }).first()) as StoredLatch | undefined;
    if (row === undefined) return { state: 'fresh', bootstrapCompletedAt: null };
    const completed = readOptionalTime(row.bootstrap_completed_at);
    const persisted = row.setup_state === 'uninitialized' || row.setup_state === 'locked' ? row.setup_state : null;
    if (persisted === null || !this.integrity.verify(DOMAIN, this.fields(persisted, completed), row.integrity_mac)) return { state: 'tampered', bootstrapCompletedAt: null };
    return { state: persisted, bootstrapCompletedAt: completed };
  }

  /**
   * Start-up adoption of a fresh database: locked when users already exist (an existing
   * deployment gets no open bootstrap window), uninitialized when it is empty. Idempotent and
   * race-safe: the insert ignores a row another process wrote first.
   */
  async adopt(): Promise<SetupState> {
    const current = await this.state();
    if (current.state !== 'fresh') return current.state;
    const hasUsers = (await this.db.knex('users').select('id').first()) !== undefined;
    const state = hasUsers ? 'locked' : 'uninitialized';
    await this.db.insertOrNull('server_config', this.row(state, null), ['id']);
    return (await this.state()).state;
  }

  /** uninitialized → locked, inside the bootstrap transaction; false when the latch was not uninitialized. */
  async lock(executor: Executor): Promise<boolean> {
    const completed = new Date(this.clock.now().getTime());
    const updated = await this.db.transitionOne(
      'server_config',
      (qb) => qb.where({ id: SINGLETON, setup_state: 'uninitialized', integrity_mac: this.seal('uninitialized', null) }),
      this.row('locked', completed),
      executor,
    );
    return updated !== null;
  }

  /** locked → uninitialized (the shell's reset), re-sealed; false when it was not locked and intact. */
  async reset(executor: Executor): Promise<boolean> {
    const current = await this.state(executor);
    if (current.state !== 'locked') return false;
    const updated = await this.db.transitionOne(
      'server_config',
      (qb) => qb.where({ id: SINGLETON, setup_state: 'locked', integrity_mac: this.seal('locked', current.bootstrapCompletedAt) }),
      this.row('uninitialized', null),
      executor,
    );
    return updated !== null;
  }

  private row(state: 'uninitialized' | 'locked', completed: Date | null) {
    return {
      id: SINGLETON,
      setup_state: state,
      bootstrap_completed_at: completed === null ? null : this.db.dialect.time(completed),
      integrity_mac: this.seal(state, completed),
    };
  }

  private seal(state: string, completed: Date | null): string {
    return this.integrity.seal(DOMAIN, this.fields(state, completed));
  }

  private fields(state: string, completed: Date | null): string[] {
    return [String(SINGLETON), state, completed === null ? '' : completed.toISOString()];
  }
}
