import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock/index.js';
import type { Integrity } from '../crypto/index.js';
import type { Logger } from '../logger/index.js';
import { readOptionalTime, readTime, type Database, type Executor, type Where } from '../storage/index.js';

import type { AdminScope } from '../http/index.js';

export type { AdminScope };
export const ADMIN_SCOPES: readonly AdminScope[] = ['full', 'read'];

interface StoredAdminKey {
  id: string;
  pubkey: string;
  scope: string;
  created_at: unknown;
  activated_at: unknown;
  revoked_at: unknown;
  mac: string;
}

/** An admin key as read back: `intact` is false when its MAC does not verify (edited in the database). */
export interface AdminKey {
  id: string;
  pubkey: string;
  scope: AdminScope;
  createdAt: Date;
  activatedAt: Date | null;
  revokedAt: Date | null;
  intact: boolean;
}

const DOMAIN = 'admin_key';
const iso = (date: Date | null) => (date === null ? '' : date.toISOString());

/**
 * Admin keys (spec › Admin key): public keys only, created → activated → revoked (soft), each row
 * sealed with a MAC over id, public key, scope, created_at, activated_at and revoked_at. Every
 * read verifies the seal; a row that fails it is never treated as live (fail closed) and is
 * reported in the log.
 */
export class AdminKeyStore {
  constructor(
    private readonly db: Database,
    private readonly integrity: Integrity,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** Inserts a key, activated now or waiting for its holder's first login. */
  async create(pubkey: string, scope: AdminScope, options: { activated: boolean }, executor: Executor = this.db.knex): Promise<AdminKey> {
    const now = new Date(this.clock.now().getTime());
    const key: AdminKey = { id: randomUUID(), pubkey: pubkey.toLowerCase(), scope, createdAt: now, activatedAt: options.activated ? now : null, revokedAt: null, intact: true };
    await executor('admin_keys').insert({ ...this.columns(key), mac: this.seal(key) });
    return key;
  }

  /** The live key (not revoked, seal intact) of this public key, or null. */
  async findLive(pubkey: string, executor: Executor = this.db.knex): Promise<AdminKey | null> {
    const row = (await executor('admin_keys').where({ pubkey: pubkey.toLowerCase() }).whereNull('revoked_at').first()) as StoredAdminKey | undefined;
    return this.liveOrNull(row);
  }

  async findLiveById(id: string, executor: Executor = this.db.knex): Promise<AdminKey | null> {
    const row = (await executor('admin_keys').where({ id }).whereNull('revoked_at').first()) as StoredAdminKey | undefined;
    return this.liveOrNull(row);
  }

  async list(executor: Executor = this.db.knex): Promise<AdminKey[]> {
    const rows = (await executor('admin_keys').orderBy([{ column: 'created_at' }, { column: 'id' }])) as StoredAdminKey[];
    return rows.map((row) => this.read(row));
  }

  /** Live, intact, activated keys: the "active admins" of the setup latch. */
  async active(executor: Executor = this.db.knex): Promise<AdminKey[]> {
    return (await this.list(executor)).filter((key) => key.intact && key.revokedAt === null && key.activatedAt !== null);
  }

  /** created → activated, once; re-sealed in the same statement's transaction. */
  async activate(key: AdminKey, executor: Executor): Promise<AdminKey | null> {
    return this.reseal(key, { activatedAt: new Date(this.clock.now().getTime()) }, (qb) => qb.whereNull('activated_at'), executor);
  }

  /** live → revoked (soft), once. */
  async revoke(key: AdminKey, executor: Executor): Promise<AdminKey | null> {
    return this.reseal(key, { revokedAt: new Date(this.clock.now().getTime()) }, (qb) => qb.whereNull('revoked_at'), executor);
  }

  private async reseal(key: AdminKey, change: Partial<AdminKey>, guard: Where, executor: Executor): Promise<AdminKey | null> {
    const next: AdminKey = { ...key, ...change };
    const row = await this.db.transitionOne<StoredAdminKey>(
      'admin_keys',
      (qb) => {
        qb.where({ id: key.id, mac: this.seal(key) });
        guard(qb);
      },
      { ...this.columns(next), mac: this.seal(next) },
      executor,
    );
    return row === null ? null : this.read(row);
  }

  private liveOrNull(row: StoredAdminKey | undefined): AdminKey | null {
    if (row === undefined) return null;
    const key = this.read(row);
    if (!key.intact) {
      this.logger.error('admin key failed its integrity check; refusing it', { admin_key_id: key.id });
      return null;
    }
    return key;
  }

  private read(row: StoredAdminKey): AdminKey {
    const key: Omit<AdminKey, 'intact'> = {
      id: row.id,
      pubkey: row.pubkey,
      scope: row.scope as AdminScope,
      createdAt: readTime(row.created_at),
      activatedAt: readOptionalTime(row.activated_at),
      revokedAt: readOptionalTime(row.revoked_at),
    };
    return { ...key, intact: ADMIN_SCOPES.includes(key.scope) && this.integrity.verify(DOMAIN, this.fields(key), row.mac) };
  }

  private seal(key: Omit<AdminKey, 'intact'>): string {
    return this.integrity.seal(DOMAIN, this.fields(key));
  }

  private fields(key: Omit<AdminKey, 'intact'>): string[] {
    return [key.id, key.pubkey, key.scope, iso(key.createdAt), iso(key.activatedAt), iso(key.revokedAt)];
  }

  private columns(key: AdminKey) {
    const { time } = this.db.dialect;
    return {
      id: key.id,
      pubkey: key.pubkey,
      scope: key.scope,
      created_at: time(key.createdAt),
      activated_at: key.activatedAt === null ? null : time(key.activatedAt),
      revoked_at: key.revokedAt === null ? null : time(key.revokedAt),
    };
  }
}
