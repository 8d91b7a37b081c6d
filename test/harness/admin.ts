import type { AuditEntry, AuditInput, Knex, WalletPlugin } from '@wallet/backend-core';
import type { TestBackend } from './backend.js';
import { NostrKey } from './wallet.js';

export const ADMIN_LOGIN = '/api/v1/admin/login';

/** A first admin, bootstrapped the way `wallet-backend setup <pubkey>` does it. */
export async function bootstrapAdmin(t: TestBackend): Promise<{ nostr: NostrKey; keyId: string }> {
  const nostr = new NostrKey();
  const key = await t.backend.setup.bootstrap(nostr.pubkey);
  return { nostr, keyId: key.id };
}

/** Fetches a login nonce and signs the admin login action with `nostr`; returns the raw response. */
export async function adminLoginResponse(t: TestBackend, nostr: NostrKey, options: { purpose?: string } = {}) {
  const challenge = await t.client.get('/api/v1/admin/login-challenge');
  if (challenge.status !== 200) throw new Error(`login-challenge answered ${challenge.status}`);
  const nonce = challenge.body.nonce as string;
  const proof = nostr.signedAction(ADMIN_LOGIN, nonce, options.purpose ?? 'admin_login', t.clock.now());
  return t.client.post(ADMIN_LOGIN, { nostr_token: proof, nonce });
}

/** Logs `nostr` in as an admin; the admin session token. */
export async function adminLogin(t: TestBackend, nostr: NostrKey): Promise<string> {
  const res = await adminLoginResponse(t, nostr);
  if (res.status !== 200) throw new Error(`admin login answered ${res.status}: ${res.text}`);
  return res.body.token as string;
}

/** A plugin that hands the test the audit chain exactly as plugins get it. */
export function auditProbe(): { plugin: WalletPlugin; append(trx: Knex.Transaction, entry: AuditInput): Promise<AuditEntry> } {
  let audit: { append(trx: Knex.Transaction, entry: AuditInput): Promise<AuditEntry> } | undefined;
  return {
    plugin: {
      name: 'audit-probe',
      setup(ctx) {
        audit = ctx.audit;
      },
    },
    append: (trx, entry) => audit!.append(trx, entry),
  };
}
