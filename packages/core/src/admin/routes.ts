import * as v from 'valibot';
import { parseNostrPubkey } from '../crypto/index.js';
import { coreErrors } from '../errors/index.js';
import { defineRoute, safeIntegerText, type AnyRoute } from '../http/index.js';
import type { OperatorSettings } from './overlay.js';
import { ADMIN_LOGIN_PATH, type AdminService } from './service.js';

const tags = ['admin'];

const oneDirection = () => coreErrors.create.invalid_request({ details: [{ path: 'query.before_seq', message: 'give after_seq or before_seq, not both' }] });
const internal = { tags, openapi: 'internal' as const };
const uuid = v.pipe(v.string(), v.uuid('must be a UUID'));
const nostrPubkey = v.pipe(
  v.string('must be a string'),
  v.transform((text) => parseNostrPubkey(text)),
  v.check((value): value is string => value !== null, 'must be a Nostr public key (64 hex or npub1…)'),
  v.transform((value) => value as string),
);

/**
 * The admin API. Served, but left out of the public OpenAPI document; docs/admin.md describes
 * it. Admin routes take only admin session tokens; user tokens are refused (401).
 */
export function adminRoutes(service: AdminService, overlay: OperatorSettings): AnyRoute[] {
  return [
    defineRoute({
      ...internal,
      method: 'GET',
      path: '/admin/login-challenge',
      operationId: 'getAdminLoginChallenge',
      summary: 'A single-use nonce for admin login (purpose `admin_login`)',
      auth: 'none',
      handler: () => service.loginChallenge(),
    }),
    defineRoute({
      ...internal,
      method: 'POST',
      path: ADMIN_LOGIN_PATH,
      operationId: 'loginAdmin',
      summary: 'Admin login by a signed action of a live admin key',
      auth: 'none',
      body: v.strictObject({ nostr_token: v.pipe(v.string(), v.minLength(1), v.maxLength(8_192)), nonce: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, 'must be the 64-hex nonce')) }),
      handler: ({ body, clientIp }) => service.login(body, clientIp),
    }),
    defineRoute({ ...internal, method: 'POST', path: '/admin/logout', operationId: 'logoutAdmin', summary: 'End this admin session', auth: 'admin', adminScope: 'read', handler: ({ auth }) => service.logout(auth) }),
    defineRoute({ ...internal, method: 'GET', path: '/admin/me', operationId: 'getAdminMe', summary: 'The calling admin key', auth: 'admin', handler: ({ auth }) => service.me(auth) }),
    defineRoute({ ...internal, method: 'GET', path: '/admin/keys', operationId: 'listAdminKeys', summary: 'Every admin key, with its integrity status', auth: 'admin', handler: () => service.listKeys() }),
    defineRoute({
      ...internal,
      method: 'POST',
      path: '/admin/keys',
      operationId: 'createAdminKey',
      summary: 'Allow a new admin key (activated by its holder’s first login)',
      auth: 'admin',
      body: v.strictObject({ pubkey: nostrPubkey, scope: v.picklist(['full', 'read'], 'must be full or read') }),
      successStatus: 201,
      handler: ({ body, auth, clientIp }) => service.createKey(auth, body.pubkey, body.scope, clientIp),
    }),
    defineRoute({
      ...internal,
      method: 'POST',
      path: '/admin/keys/{key_id}/revoke',
      operationId: 'revokeAdminKey',
      summary: 'Revoke an admin key (soft) and end its sessions',
      auth: 'admin',
      params: v.object({ key_id: uuid }),
      handler: ({ params, auth, clientIp }) => service.revokeKey(auth, params.key_id.toLowerCase(), clientIp),
    }),
    defineRoute({
      ...internal,
      method: 'GET',
      path: '/admin/config/{section}',
      operationId: 'getAdminSettings',
      summary: 'A settings section: effective values, overlay, defaults, apply mode',
      auth: 'admin',
      params: v.object({ section: v.string() }),
      handler: ({ params }) => service.readSettings(params.section),
    }),
    defineRoute({
      ...internal,
      method: 'PUT',
      path: '/admin/config/{section}',
      operationId: 'putAdminSettings',
      summary: 'Replace a settings section’s overlay (audited)',
      auth: 'admin',
      params: v.object({ section: v.string() }),
      body: v.record(v.string(), v.unknown()),
      handler: ({ params, body, auth, clientIp }) => service.writeSettings(auth, params.section, body, clientIp),
    }),
    defineRoute({
      ...internal,
      method: 'GET',
      path: '/admin/audit',
      operationId: 'getAdminAudit',
      summary: 'A page of audit entries: after a sequence number oldest first, or before one newest first; exact filters',
      auth: 'admin',
      query: v.object({
        after_seq: v.optional(safeIntegerText({ min: 0 })),
        before_seq: v.optional(safeIntegerText({ min: 1 })),
        limit: v.optional(safeIntegerText({ min: 1, max: 500 }), '100'),
        action: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(100))),
        target: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(200))),
        actor_kind: v.optional(v.picklist(['admin', 'cli', 'system', 'user'], 'must be admin, cli, system or user')),
      }),
      handler: ({ query }) => {
        if (query.after_seq !== undefined && query.before_seq !== undefined) throw oneDirection();
        return service.readAudit({ afterSeq: query.after_seq, beforeSeq: query.before_seq, limit: query.limit, action: query.action, target: query.target, actorKind: query.actor_kind });
      },
    }),
    defineRoute({
      ...internal,
      method: 'GET',
      path: '/admin/audit/verify',
      operationId: 'verifyAdminAudit',
      summary: 'Verify the audit chain now, from its newest sealed checkpoint (or all of it with full=true): ok, entries, where it started, where and why it broke',
      auth: 'admin',
      query: v.object({ full: v.optional(v.picklist(['true', 'false'], 'must be true or false'), 'false') }),
      handler: ({ query }) => service.verifyAudit(query.full === 'true'),
    }),
    defineRoute({
      method: 'GET',
      path: '/landing',
      operationId: 'getLanding',
      summary: 'The operator’s landing-page texts (title, tagline, announcement, contact URL)',
      tags: ['system'],
      auth: 'none',
      handler: async () => (await overlay.view('landing')).effective,
    }),
  ];
}

/** The running service as the operator sees it, and the admin API's own OpenAPI document (admin sessions only). */
export function serviceRoutes(report: () => Promise<unknown>, adminOpenapi: () => Record<string, unknown>): AnyRoute[] {
  return [
    defineRoute({ ...internal, method: 'GET', path: '/admin/system', operationId: 'getAdminSystem', summary: 'Versions, database and migrations, features, chains with their upstream state, readiness', auth: 'admin', handler: () => report() }),
    defineRoute({ ...internal, method: 'GET', path: '/admin/openapi.json', operationId: 'getAdminOpenApi', summary: 'The admin API as an OpenAPI 3.1 document', auth: 'admin', handler: () => adminOpenapi() }),
  ];
}
