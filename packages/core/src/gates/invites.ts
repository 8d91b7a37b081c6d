import { randomBytes } from 'node:crypto';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { base58 } from '@scure/base';
import type { Clock } from '../clock/index.js';
import type { RegistrationAttempt, RegistrationGate } from '../identity/index.js';
import type { Database, Knex } from '../storage/index.js';
import { gateErrors } from './errors.js';

const codeHash = (code: string) => bytesToHex(sha256(utf8ToBytes(code.trim())));

/**
 * Invite codes (spec › Invite code): 128 random bits in base58, stored only as sha256(code);
 * consumed once by a conditional update; one literal error for unknown, used and expired.
 */
export class InviteStore implements RegistrationGate {
  readonly name = 'invite';

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  /** Creates `count` codes and returns them raw: the only time they exist outside the holder. */
  async mint(count: number, options: { label?: string; expiresAt?: Date } = {}): Promise<string[]> {
    const codes = Array.from({ length: count }, () => base58.encode(randomBytes(16)));
    const now = this.db.dialect.time(this.clock.now());
    const expires = options.expiresAt ? this.db.dialect.time(options.expiresAt) : null;
    await this.db.transaction(async (trx) => {
      for (const code of codes) await trx('invite_codes').insert({ code_hash: codeHash(code), label: options.label ?? null, created_at: now, expires_at: expires, used_at: null });
    });
    return codes;
  }

  async precheck(attempt: RegistrationAttempt): Promise<void> {
    if (attempt.inputs.invite_code === undefined) throw gateErrors.create.invite_invalid();
  }

  async admit(attempt: RegistrationAttempt, trx: Knex.Transaction): Promise<void> {
    const code = attempt.inputs.invite_code;
    if (code === undefined) throw gateErrors.create.invite_invalid();
    const now = this.db.dialect.time(this.clock.now());
    const used = await this.db.transitionOne(
      'invite_codes',
      (qb) => qb.where({ code_hash: codeHash(code) }).whereNull('used_at').where((w) => w.whereNull('expires_at').orWhere('expires_at', '>', now)),
      { used_at: now },
      trx,
    );
    if (used === null) throw gateErrors.create.invite_invalid();
  }
}
