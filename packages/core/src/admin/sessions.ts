import { randomBytes, randomUUID } from 'node:crypto';
import type { Clock } from '../clock/index.js';
import { createIntegrity, type Integrity } from '../crypto/index.js';
import type { AdminAuth, AdminScope } from '../http/index.js';
import type { Database, Executor } from '../storage/index.js';
import { adminErrors } from './errors.js';
import type { AdminKey, AdminKeyStore } from './keys.js';

const TOKEN_PREFIX = 'adm_';
const TOKEN_SHAPE = /^adm_[A-Za-z0-9_-]{43}$/;

/**
 * Admin sessions: their own table and their own secret (spec › rule 8). A token is 256 random
 * bits, shown once; the table keeps its seal under ADMIN_SESSION_SECRET and the peer address.
 * A session is only as good as its key: every request re-reads the key and checks its seal.
 */
export class AdminSessionStore {
  private readonly tokenMac: Integrity;

  constructor(
    private readonly db: Database,
    private readonly keys: AdminKeyStore,
    private readonly clock: Clock,
    secret: string,
    private readonly ttlSec: number,
  ) {
    this.tokenMac = createIntegrity(secret);
  }

  async start(adminKey: AdminKey, peerIp: string, executor: Executor): Promise<{ token: string; expiresAt: Date; sessionId: string }> {
    const token = `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + this.ttlSec * 1000);
    const sessionId = randomUUID();
    await executor('admin_sessions').insert({
      id: sessionId,
      admin_key_id: adminKey.id,
      token_hash: this.hash(token),
      peer_ip: peerIp,
      created_at: this.db.dialect.time(now),
      expires_at: this.db.dialect.time(expiresAt),
      revoked_at: null,
    });
    return { token, expiresAt, sessionId };
  }

  /** `Authorization: Bearer adm_…` → the admin, or 401; a `read` key where `needs` is `full`, 403. A user's JWT never has this shape. */
  async authenticate(authorization: string | undefined, needs: AdminScope = 'read'): Promise<AdminAuth> {
    const token = /^Bearer (\S+)$/.exec(authorization ?? '')?.[1];
    if (token === undefined || !TOKEN_SHAPE.test(token)) throw adminErrors.create.admin_unauthorized();
    const session = (await this.db
      .knex('admin_sessions')
      .select('id', 'admin_key_id')
      .where({ token_hash: this.hash(token) })
      .whereNull('revoked_at')
      .where('expires_at', '>', this.db.dialect.time(this.clock.now()))
      .first()) as { id: string; admin_key_id: string } | undefined;
    if (session === undefined) throw adminErrors.create.admin_unauthorized();
    const key = await this.keys.findLiveById(session.admin_key_id);
    if (key === null || key.activatedAt === null) throw adminErrors.create.admin_unauthorized();
    if (needs === 'full' && key.scope !== 'full') throw adminErrors.create.admin_forbidden();
    return { keyId: key.id, pubkey: key.pubkey, scope: key.scope, sessionId: session.id };
  }

  async revoke(sessionId: string, executor: Executor = this.db.knex): Promise<void> {
    await executor('admin_sessions').where({ id: sessionId }).whereNull('revoked_at').update({ revoked_at: this.db.dialect.time(this.clock.now()) });
  }

  async revokeAll(executor: Executor): Promise<void> {
    await executor('admin_sessions').whereNull('revoked_at').update({ revoked_at: this.db.dialect.time(this.clock.now()) });
  }

  async revokeAllForKey(keyId: string, executor: Executor): Promise<void> {
    await executor('admin_sessions').where({ admin_key_id: keyId }).whereNull('revoked_at').update({ revoked_at: this.db.dialect.time(this.clock.now()) });
  }

  private hash(token: string): string {
    return this.tokenMac.seal('admin_session', [token]);
  }
}
