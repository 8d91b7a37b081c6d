import * as v from 'valibot';

/** A compact JWS (three base64url segments); JWTs are a few hundred bytes, the bound keeps hostile input away from the verifier. */
const jwt = v.pipe(
  v.string('must be a string'),
  v.minLength(1, 'must not be empty'),
  v.maxLength(4096, 'is too long'),
  v.regex(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/, 'must be a JWT'),
);

export const refreshTokenRequest = v.pipe(v.object({ refresh_token: jwt }), v.title('RefreshTokenRequest'));

/**
 * Logout is idempotent (spec › rule 4): any string, JWT or not, is answered 200; one that is no
 * session's token simply revokes nothing. Only the size bound is kept.
 */
export const logoutRequest = v.pipe(v.object({ refresh_token: v.pipe(v.string('must be a string'), v.maxLength(4096, 'is too long')) }), v.title('LogoutRequest'));

export const authResponse = v.pipe(v.object({
  access_token: v.string(),
  refresh_token: v.string(),
  token_type: v.literal('Bearer'),
  expires_in: v.number(),
  refresh_expires_in: v.number(),
  user_id: v.pipe(v.string(), v.uuid()),
  platform: v.picklist(['extension', 'web', 'nostr']),
}), v.title('AuthResponse'));

export const logoutResponse = v.pipe(v.object({ ok: v.literal(true) }), v.title('OkResponse'));

export const userInfo = v.pipe(v.object({
  id: v.pipe(v.string(), v.uuid()),
  username: v.nullable(v.string()),
  nostr_pubkey: v.nullable(v.string()),
  premium_until: v.nullable(v.pipe(v.string(), v.isoTimestamp())),
  premium_active: v.boolean(),
  created_at: v.pipe(v.string(), v.isoTimestamp()),
}), v.title('UserInfo'));
