import { coreErrors } from '../errors/index.js';
import { defineRoute, type AnyRoute } from '../http/index.js';
import type { UserRepository } from '../users/index.js';
import { authResponse, logoutRequest, logoutResponse, refreshTokenRequest, userInfo } from './schemas.js';
import type { Sessions } from './session-service.js';

export function sessionRoutes(sessions: Sessions, users: UserRepository): AnyRoute[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/auth/refresh',
      operationId: 'refreshSession',
      errors: ['invalid_refresh_token', 'account_suspended', 'account_erasure_pending'],
      summary: 'Rotate a refresh token: the old session is revoked and a fresh token pair issued',
      tags: ['auth'],
      auth: 'none',
      body: refreshTokenRequest,
      response: authResponse,
      statuses: { 401: 'Refresh token invalid, expired, revoked or already rotated', 403: 'The account is suspended by the operator (account_suspended), or a plugin\'s session guard refuses new sessions for it (a confirmed account erasure: account_erasure_pending)' },
      handler: ({ body }) => sessions.refresh(body.refresh_token),
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/logout',
      operationId: 'logout',
      summary: 'Revoke the session of a refresh token (idempotent: an unknown, revoked or malformed token also answers 200)',
      tags: ['auth'],
      auth: 'none',
      body: logoutRequest,
      response: logoutResponse,
      handler: async ({ body }) => {
        await sessions.logout(body.refresh_token);
        return { ok: true };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/auth/me',
      operationId: 'getCurrentUser',
      summary: 'The calling user',
      tags: ['auth'],
      auth: 'bearer',
      response: userInfo,
      handler: async ({ auth }) => {
        const user = await users.findInfo(auth.userId);
        // A live session of a deleted user cannot exist (cascade); treat the race as a dead token.
        if (user === null) throw coreErrors.create.unauthorized();
        return user;
      },
    }),
  ];
}
