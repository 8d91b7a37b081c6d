import * as v from 'valibot';
import type { Challenges } from '../challenges/index.js';
import type { SignedActions } from '../auth/index.js';
import { coreErrors } from '../errors/index.js';
import type { Database } from '../storage/index.js';
import type { AdminAuth } from '../http/index.js';
import type { AuditChain, AuditEntry, AuditPage } from './audit.js';
import { adminErrors } from './errors.js';
import type { AdminKey, AdminKeyStore, AdminScope } from './keys.js';
import type { SetupLatch } from './latch.js';
import { isSettingSection, SETTING_SECTIONS, type OperatorSettings, type SectionView, type SettingSection } from './overlay.js';
import type { AdminSessionStore } from './sessions.js';

export const ADMIN_LOGIN_PURPOSE = 'admin_login';
export const ADMIN_LOGIN_PATH = '/admin/login';

export interface AdminDeps {
  db: Database;
  keys: AdminKeyStore;
  sessions: AdminSessionStore;
  latch: SetupLatch;
  audit: AuditChain;
  overlay: OperatorSettings;
  challenges: Challenges;
  signedActions: SignedActions;
}

export interface AdminKeyView {
  id: string;
  pubkey: string;
  scope: AdminScope;
  created_at: string;
  activated_at: string | null;
  revoked_at: string | null;
  intact: boolean;
}

export const toKeyView = (key: AdminKey): AdminKeyView => ({
  id: key.id,
  pubkey: key.pubkey,
  scope: key.scope,
  created_at: key.createdAt.toISOString(),
  activated_at: key.activatedAt?.toISOString() ?? null,
  revoked_at: key.revokedAt?.toISOString() ?? null,
  intact: key.intact,
});

/**
 * The admin API's rules. Every privileged write happens in one transaction with its audit
 * entry; admin login is a signed action (purpose `admin_login`) by a live, intact key, and only
 * once first-run setup has locked the latch.
 */
export class AdminService {
  constructor(private readonly deps: AdminDeps) {}

  async loginChallenge(): Promise<{ nonce: string; purpose: string; expires_at: string }> {
    const issued = await this.deps.challenges.issue(ADMIN_LOGIN_PURPOSE);
    return { nonce: issued.nonce, purpose: ADMIN_LOGIN_PURPOSE, expires_at: issued.expiresAt.toISOString() };
  }

  async login(request: { nostr_token: string; nonce: string }, peerIp: string) {
    const { deps } = this;
    if ((await deps.latch.state()).state !== 'locked') throw adminErrors.create.admin_setup_incomplete();
    const { pubkey } = await deps.signedActions.verify({ token: request.nostr_token, nonce: request.nonce, purpose: ADMIN_LOGIN_PURPOSE, path: ADMIN_LOGIN_PATH });
    return deps.db.transaction(async (trx) => {
      let key = await deps.keys.findLive(pubkey, trx);
      if (key === null) throw adminErrors.create.admin_login_refused();
      if (key.activatedAt === null) {
        // The first proof of control by the key's holder is what activates it.
        key = await deps.keys.activate(key, trx);
        if (key === null) throw adminErrors.create.admin_login_refused();
        await deps.audit.append(trx, { action: 'admin_key_activated', actorKind: 'admin', actorPubkey: pubkey, target: `admin_key:${key.id}`, peerIp });
      }
      const session = await deps.sessions.start(key, peerIp, trx);
      await deps.audit.append(trx, { action: 'admin_login', actorKind: 'admin', actorPubkey: pubkey, target: `admin_session:${session.sessionId}`, peerIp });
      return { token: session.token, token_type: 'Bearer', expires_at: session.expiresAt.toISOString(), admin: toKeyView(key) };
    });
  }

  async logout(admin: AdminAuth): Promise<void> {
    await this.deps.sessions.revoke(admin.sessionId);
  }

  async me(admin: AdminAuth): Promise<AdminKeyView> {
    const key = await this.deps.keys.findLiveById(admin.keyId);
    if (key === null) throw adminErrors.create.admin_unauthorized();
    return toKeyView(key);
  }

  async listKeys(): Promise<{ keys: AdminKeyView[] }> {
    return { keys: (await this.deps.keys.list()).map(toKeyView) };
  }

  /** A new key waits, `activated_at` null, until its holder logs in. */
  async createKey(admin: AdminAuth, pubkey: string, scope: AdminScope, peerIp: string): Promise<AdminKeyView> {
    const { deps } = this;
    return deps.db.transaction(async (trx) => {
      if ((await deps.keys.findLive(pubkey, trx)) !== null) throw adminErrors.create.admin_key_exists();
      const key = await deps.keys.create(pubkey, scope, { activated: false }, trx);
      await deps.audit.append(trx, { action: 'admin_key_created', actorKind: 'admin', actorPubkey: admin.pubkey, target: `admin_key:${key.id}`, details: { pubkey: key.pubkey, scope }, peerIp });
      return toKeyView(key);
    });
  }

  async revokeKey(admin: AdminAuth, keyId: string, peerIp: string): Promise<AdminKeyView> {
    const { deps } = this;
    return deps.db.transaction(async (trx) => {
      await deps.db.dialect.lockTableForWrites(trx, 'admin_keys');
      const key = await deps.keys.findLiveById(keyId, trx);
      if (key === null) throw adminErrors.create.admin_key_not_found();
      const full = (await deps.keys.active(trx)).filter((active) => active.scope === 'full');
      if (full.length === 1 && full[0]!.id === key.id) throw adminErrors.create.admin_last_key();
      const revoked = await deps.keys.revoke(key, trx);
      if (revoked === null) throw adminErrors.create.admin_key_not_found();
      await deps.sessions.revokeAllForKey(key.id, trx);
      await deps.audit.append(trx, { action: 'admin_key_revoked', actorKind: 'admin', actorPubkey: admin.pubkey, target: `admin_key:${key.id}`, peerIp });
      return toKeyView(revoked);
    });
  }

  async readSettings(section: string): Promise<SectionView> {
    return this.deps.overlay.view(knownSection(section));
  }

  async writeSettings(admin: AdminAuth, sectionName: string, body: unknown, peerIp: string): Promise<SectionView> {
    const section = knownSection(sectionName);
    const parsed = v.safeParse(SETTING_SECTIONS[section], body);
    if (!parsed.success) throw invalidSection(parsed.issues);
    const { deps } = this;
    await deps.db.transaction(async (trx) => {
      await deps.overlay.write(section, parsed.output, trx);
      await deps.audit.append(trx, { action: 'operator_settings_updated', actorKind: 'admin', actorPubkey: admin.pubkey, target: `settings:${section}`, details: { values: parsed.output }, peerIp });
    });
    return deps.overlay.view(section);
  }

  async readAudit(page: AuditPage): Promise<{ entries: AuditEntry[] }> {
    return { entries: await this.deps.audit.list(page) };
  }

  /**
   * The chain checked now, from its newest sealed checkpoint on or (`full`) from seq 1: `ok`, how
   * many entries verified (checkpointed ones included), where the walk started, and where and why it broke.
   */
  async verifyAudit(full: boolean): Promise<{ ok: boolean; entries: number; from_seq: number; broken_at: number | null; reason: string | null }> {
    let fromSeq = 0;
    const verdict = await this.deps.audit.verify({ full, onStart: (seq) => (fromSeq = seq) });
    return { ok: verdict.ok, entries: verdict.entries, from_seq: fromSeq, broken_at: verdict.ok ? null : verdict.brokenAt, reason: verdict.ok ? null : verdict.reason };
  }
}

function knownSection(name: string): SettingSection {
  if (!isSettingSection(name)) throw adminErrors.create.setting_section_unknown();
  return name;
}

function invalidSection(issues: readonly v.BaseIssue<unknown>[]) {
  return coreErrors.create.invalid_request({
    details: issues.map((issue) => ({ path: `body${issue.path?.map((item) => `.${String(item.key)}`).join('') ?? ''}`, message: issue.message })),
  });
}
