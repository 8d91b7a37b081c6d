import { parseNostrPubkey } from '../crypto/index.js';
import { coreErrors, defineErrors } from '../errors/index.js';
import { isUuid, type Database } from '../storage/index.js';
import type { AuditChain, AuditVerdict, AuditVerifyOptions } from './audit.js';
import type { AdminKey, AdminKeyStore } from './keys.js';
import type { SetupLatch, SetupState } from './latch.js';
import type { AdminSessionStore } from './sessions.js';

/** Refusals of the operator shell's setup commands (the CLI prints them). */
export const setupErrors = defineErrors({
  setup_tampered: { status: 500, message: 'The setup latch failed its integrity check (server_config was edited, or ADMIN_KEY_INTEGRITY_SECRET changed).' },
  setup_not_uninitialized: { status: 409, message: 'Setup is already complete (the latch is locked); run `wallet-backend reset-setup --acknowledge` first.' },
  setup_admin_exists: { status: 409, message: 'An active admin key exists; revoke it (`wallet-backend admin revoke <id>`) before bootstrapping another.' },
  setup_not_locked: { status: 409, message: 'The latch is not locked; there is nothing to reset.' },
});

/** Invites as the shell mints them: the gates' own audited minting (gates/invites-admin.ts), seen only through what the shell calls. */
export interface ShellInviteMinter {
  mint(minter: { kind: 'cli' }, request: { count: number; label?: string; expiresAt?: Date }): Promise<{ invites: Array<{ id: string; code: string }> }>;
}

export interface SetupDeps {
  db: Database;
  latch: SetupLatch;
  keys: AdminKeyStore;
  sessions: AdminSessionStore;
  audit: AuditChain;
  invites: ShellInviteMinter;
}

/**
 * The operator shell's commands: bootstrap of the first admin and the latch's reset, admin keys,
 * invites, audit verification. Each change is ONE transaction with its audit entry, so a crash
 * leaves either the old state or the new one, never half of it.
 */
export class SetupService {
  constructor(private readonly deps: SetupDeps) {}

  /** The latch as the server sees it, adopting a fresh database first (as start-up does). */
  async status(): Promise<{ state: SetupState; activeAdmins: number }> {
    const state = await this.deps.latch.adopt();
    return { state, activeAdmins: (await this.deps.keys.active()).length };
  }

  /** uninitialized → locked with `pubkey` as the first full-scope admin, activated. */
  async bootstrap(pubkey: string): Promise<AdminKey> {
    const { deps } = this;
    const state = await deps.latch.adopt();
    if (state === 'tampered') throw setupErrors.create.setup_tampered();
    if (state !== 'uninitialized') throw setupErrors.create.setup_not_uninitialized();
    return deps.db.transaction(async (trx) => {
      await deps.db.dialect.lockTableForWrites(trx, 'admin_keys');
      if ((await deps.keys.active(trx)).length > 0) throw setupErrors.create.setup_admin_exists();
      if ((await deps.keys.findLive(pubkey, trx)) !== null) throw setupErrors.create.setup_admin_exists();
      const key = await deps.keys.create(pubkey, 'full', { activated: true }, trx);
      await deps.audit.append(trx, { action: 'setup_bootstrap', actorKind: 'cli', actorPubkey: key.pubkey, target: `admin_key:${key.id}` });
      if (!(await deps.latch.lock(trx))) throw setupErrors.create.setup_not_uninitialized();
      return key;
    });
  }

  /** locked → uninitialized; admin keys are kept, admin sessions end. */
  async reset(acknowledged: boolean): Promise<void> {
    if (!acknowledged) throw coreErrors.create.invalid_request({ message: 'reset-setup needs the explicit acknowledgement flag.' });
    const { deps } = this;
    const state = await deps.latch.adopt();
    if (state === 'tampered') throw setupErrors.create.setup_tampered();
    await deps.db.transaction(async (trx) => {
      if (!(await deps.latch.reset(trx))) throw setupErrors.create.setup_not_locked();
      await deps.sessions.revokeAll(trx);
      await deps.audit.append(trx, { action: 'setup_reset', actorKind: 'cli' });
    });
  }

  /** Revokes an admin key from the shell (no last-key guard: the shell is the recovery path). */
  async revokeKey(idOrPubkey: string): Promise<AdminKey | null> {
    const { deps } = this;
    return deps.db.transaction(async (trx) => {
      const pubkey = parseNostrPubkey(idOrPubkey);
      const key = isUuid(idOrPubkey) ? await deps.keys.findLiveById(idOrPubkey.toLowerCase(), trx) : pubkey === null ? null : await deps.keys.findLive(pubkey, trx);
      if (key === null) return null;
      const revoked = await deps.keys.revoke(key, trx);
      if (revoked === null) return null;
      await deps.sessions.revokeAllForKey(key.id, trx);
      await deps.audit.append(trx, { action: 'admin_key_revoked', actorKind: 'cli', target: `admin_key:${key.id}` });
      return revoked;
    });
  }

  /**
   * Mints `count` invite codes from the shell, in one transaction with their `invites_minted`
   * audit entry (actor `cli`, the invites by id only), as the admin API's mint is audited.
   * Returns the raw codes: the only time they exist outside their holders.
   */
  async mintInvites(count: number, options: { label?: string; expiresAt?: Date } = {}): Promise<Array<{ id: string; code: string }>> {
    return (await this.deps.invites.mint({ kind: 'cli' }, { count, ...options })).invites;
  }

  listKeys(): Promise<AdminKey[]> {
    return this.deps.keys.list();
  }

  /** From the newest sealed checkpoint on, or the whole chain with `full`. */
  verifyAudit(options: AuditVerifyOptions = {}): Promise<AuditVerdict> {
    return this.deps.audit.verify(options);
  }
}
