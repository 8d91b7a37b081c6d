import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './api.js';
import { trimService } from '../service-url.js';
import { apiErrorOf } from './errors.js';

export interface WalletClientOptions {
  /** The server's public URL (its `PUBLIC_API_URL`), e.g. `https://wallet.example`; paths start at `/api/v1/…`. */
  baseUrl: string;
  /** The session's access token, asked before each request that sets no `Authorization` of its own (none: the request goes without). */
  accessToken?: () => string | null | undefined | Promise<string | null | undefined>;
  /** A `fetch` of your own (tests, a proxy); the global one otherwise. */
  fetch?: typeof globalThis.fetch;
}

/** Every documented route, typed from the server's OpenAPI document: `api.GET('/api/v1/auth/me')`, `api.POST(…, { body })`. */
export type WalletApi = Client<paths>;

/**
 * A typed client for every route of the published OpenAPI document (openapi-fetch over types
 * generated from docs/openapi.json). Each call resolves to `{ data }` or `{ error }` (the
 * server's `ErrorResponse`), never throws for an HTTP error; `unwrap` turns it into the data or
 * a thrown `WalletApiError` carrying the stable code.
 */
export function createWalletClient(options: WalletClientOptions): WalletApi {
  const api = createClient<paths>({ baseUrl: trimService(options.baseUrl), ...(options.fetch ? { fetch: options.fetch } : {}) });
  const accessToken = options.accessToken;
  if (accessToken !== undefined) {
    api.use({
      async onRequest({ request }) {
        // A request that carries its own Authorization (a NIP-98 login) keeps it.
        if (request.headers.has('Authorization')) return request;
        const token = await accessToken();
        if (token) request.headers.set('Authorization', `Bearer ${token}`);
        return request;
      },
    });
  }
  return api;
}

/** An openapi-fetch result: the data, or a `WalletApiError` thrown with the server's code and status. */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.response.ok && result.error === undefined) return result.data as T;
  throw apiErrorOf(result.response, result.error);
}
