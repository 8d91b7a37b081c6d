/* global window, btoa, TextEncoder */
// Admin login with a NIP-07 extension (window.nostr), exactly as docs/admin.md "Logging in" says.
import { API_BASE } from './config.js';
import { ApiError, call, setToken } from './api.js';

export const LOGIN_PATH = '/api/v1/admin/login';
/** SHA-256 of `POST\n/api/v1/admin/login\n\n` + SHA-256 of the empty body (docs/admin.md). */
export const LOGIN_DESCRIPTOR = '50258b9d0fef4897f82f028221db7ca84b4b0e384017d455018fa76b8c1c5117';

function base64(text) {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** Challenge → the extension signs the kind 27235 event → login. Resolves to the session (`{token, expires_at, admin}`). */
export async function login() {
  const nostr = window.nostr;
  if (!nostr || typeof nostr.signEvent !== 'function') {
    throw new ApiError(0, 'nip07_missing', 'No NIP-07 extension was found (window.nostr): install or unlock one that holds your admin key.');
  }
  const challenge = await call('GET', '/admin/login-challenge');
  const template = {
    kind: 27235,
    created_at: Math.floor(Date.now() / 1000),
    content: '',
    tags: [
      ['u', `${API_BASE}${LOGIN_PATH}`],
      ['method', 'POST'],
      ['nonce', challenge.nonce],
      ['purpose', 'admin_login'],
      ['descriptor', LOGIN_DESCRIPTOR],
    ],
  };
  let event;
  try {
    event = await nostr.signEvent(template);
  } catch (err) {
    throw new ApiError(0, 'nip07_refused', `The extension did not sign the login (${err instanceof Error ? err.message : String(err)}).`);
  }
  const session = await call('POST', '/admin/login', { body: { nostr_token: base64(JSON.stringify(event)), nonce: challenge.nonce } });
  setToken(session.token);
  return session;
}
