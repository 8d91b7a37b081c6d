import * as v from 'valibot';
import { defineRoute, type AnyRoute } from '../http/index.js';
import type { AccountAdmin } from './accounts.js';

const admin = { tags: ['admin'], openapi: 'internal' as const, auth: 'admin' as const };
const userParams = v.object({ user_id: v.pipe(v.string(), v.uuid('must be a UUID')) });
const reasonBody = v.pipe(
  v.strictObject({ reason: v.pipe(v.string('must be a string'), v.trim(), v.minLength(1, 'must say why'), v.maxLength(500, 'must be at most 500 characters')) }),
  v.title('AccountSuspensionRequest'),
);

/** The operator's account routes: find, view, suspend, reinstate (docs/admin.md#accounts). */
export function accountRoutes(accounts: AccountAdmin): AnyRoute[] {
  return [
    defineRoute({
      ...admin,
      method: 'GET',
      path: '/admin/users',
      operationId: 'findAdminUsers',
      summary: 'Find accounts by exact user id, username, Nostr key (hex or npub) or receiving key',
      query: v.object({ q: v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(200, 'must be at most 200 characters')) }),
      handler: ({ query }) => accounts.find(query.q),
    }),
    defineRoute({
      ...admin,
      method: 'GET',
      path: '/admin/users/{user_id}',
      operationId: 'getAdminUser',
      summary: 'One account: identities, keys with their proven state, live sessions, premium, suspension, and each feature’s section',
      params: userParams,
      errors: ['admin_user_not_found'],
      handler: ({ params }) => accounts.view(params.user_id),
    }),
    defineRoute({
      ...admin,
      method: 'POST',
      path: '/admin/users/{user_id}/suspend',
      operationId: 'suspendAdminUser',
      summary: 'Suspend an account: its sessions end, its logins are refused, its NIP-05 entry and relay admission are withdrawn (audited with the reason)',
      params: userParams,
      body: reasonBody,
      errors: ['admin_user_not_found', 'account_already_suspended'],
      handler: ({ params, body, auth, clientIp }) => accounts.suspend(auth, params.user_id, body.reason, clientIp),
    }),
    defineRoute({
      ...admin,
      method: 'POST',
      path: '/admin/users/{user_id}/reinstate',
      operationId: 'reinstateAdminUser',
      summary: 'Lift a suspension: logins work again, the NIP-05 entry and relay admission return (audited with the reason)',
      params: userParams,
      body: reasonBody,
      errors: ['admin_user_not_found', 'account_not_suspended'],
      handler: ({ params, body, auth, clientIp }) => accounts.reinstate(auth, params.user_id, body.reason, clientIp),
    }),
  ];
}
