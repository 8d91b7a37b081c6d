/* global fetch */
// The admin API. The session token lives in this module's memory only: no cookie, no storage,
// so no other page can ride on it (no CSRF by construction) and a reload means logging in again.
import { API_BASE } from './config.js';

export class ApiError extends Error {
  constructor(status, code, message, details) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = Array.isArray(details) ? details : [];
  }
}

let token = null;
let expired = () => undefined;

export function setToken(value) {
  token = value;
}

export function loggedIn() {
  return token !== null;
}

/** Called once when a session ends under us (401 admin_unauthorized while logged in). */
export function onSessionExpired(callback) {
  expired = callback;
}

/** `call('GET', '/admin/keys')`: the parsed JSON body (null for 204); any other answer throws an ApiError with the API's code and message. */
export async function call(method, path, { query, body } = {}) {
  const url = new URL(`${API_BASE}/api/v1${path}`);
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== null && String(value) !== '') url.searchParams.set(name, String(value));
  }
  const headers = { Accept: 'application/json' };
  if (token !== null) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let res;
  try {
    res = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store', credentials: 'omit', referrerPolicy: 'no-referrer' });
  } catch (err) {
    throw new ApiError(0, 'network_error', `The API at ${API_BASE} could not be reached (${err instanceof Error ? err.message : String(err)}).`);
  }
  const text = await res.text();
  let data = null;
  try {
    data = text === '' ? null : JSON.parse(text);
  } catch {
    data = null;
  }
  if (res.ok) return data;
  const error = data && typeof data === 'object' && data.error && typeof data.error === 'object' ? data.error : {};
  const failure = new ApiError(
    res.status,
    typeof error.code === 'string' ? error.code : `http_${res.status}`,
    typeof error.message === 'string' ? error.message : `The API answered ${res.status} without an error body.`,
    error.details,
  );
  if (res.status === 401 && failure.code === 'admin_unauthorized' && token !== null) {
    token = null;
    expired(failure);
  }
  throw failure;
}

/** The path segment for an id the operator typed (never lets it change the path). */
export function segment(value) {
  return encodeURIComponent(String(value).trim());
}
