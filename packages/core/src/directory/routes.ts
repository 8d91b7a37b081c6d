import { defineRoute, type AnyRoute } from '../http/index.js';
import type { DirectoryService } from './directory-service.js';
import { registerKeyRequest } from './key-proof.js';
import {
  grinAddressParams,
  grinAddressUserResponse,
  lookupUsernameResponse,
  myUsernameResponse,
  nip05Query,
  nip05Response,
  setUsernameRequest,
  setUsernameResponse,
  userAssetParams,
  userIdParams,
  userKeyInfo,
  userKeysResponse,
  usernameParams,
} from './schemas.js';
import type { UsernameService } from './usernames.js';

const nip05Route = (directory: DirectoryService, root: boolean): AnyRoute =>
  defineRoute({
    method: 'GET',
    path: '/.well-known/nostr.json',
    root,
    operationId: root ? 'getNip05DocumentAtRoot' : 'getNip05Document',
    summary: root ? 'NIP-05 directory document (site root)' : 'NIP-05 directory document',
    description: 'Maps a lower-cased username to its linked Nostr public key. An unknown name, an unlinked user or no name gives an empty document, never an error.',
    tags: ['directory'],
    auth: 'none',
    query: nip05Query,
    response: nip05Response,
    // NIP-05 clients fetch this from browsers on any origin, and a lookup never errors (not even 429).
    headers: { 'Access-Control-Allow-Origin': '*' },
    rateLimit: false,
    neverRefuses: true,
    handler: ({ query }) => directory.nip05(query.name),
  });

/** The CORS preflight a browser may send before fetching the NIP-05 document from another origin. */
const nip05PreflightRoute = (root: boolean): AnyRoute =>
  defineRoute({
    method: 'OPTIONS',
    path: '/.well-known/nostr.json',
    root,
    operationId: root ? 'preflightNip05DocumentAtRoot' : 'preflightNip05Document',
    summary: 'CORS preflight for the NIP-05 document',
    auth: 'none',
    successStatus: 204,
    openapi: 'internal',
    headers: {
      'Access-Control-Allow-Origin': '*',
      'Access-Control-Allow-Methods': 'GET, OPTIONS',
      // Whatever request headers a browser adds to the GET: the document is public, no credentials.
      'Access-Control-Allow-Headers': '*',
      'Access-Control-Max-Age': '86400',
    },
    rateLimit: false,
    handler: () => undefined,
  });

/**
 * The handle lookup. It is documented at `/usernames/{username}`: its first home,
 * `/users/by-username/{username}`, is ambiguous with `/users/{user_id}/keys` (a user named
 * `keys` was routed to the keys listing and refused as not a UUID). The old path is still
 * served, undocumented, and is registered before `/users/{user_id}/keys` so it wins there.
 */
const usernameLookupRoute = (directory: DirectoryService, path: string, openapi: 'public' | 'internal'): AnyRoute =>
  defineRoute({
    method: 'GET',
    path,
    operationId: openapi === 'public' ? 'lookupUsername' : 'lookupUsernameByLegacyPath',
    summary: "Look up a handle's receiving keys",
    description: 'Case-insensitive. An unknown handle gets the same shape with `registered: false`.',
    tags: ['directory'],
    auth: 'none',
    openapi,
    params: usernameParams,
    response: lookupUsernameResponse,
    handler: ({ params }) => directory.byUsername(params.username),
  });

export function directoryRoutes(directory: DirectoryService, usernames: UsernameService): AnyRoute[] {
  return [
    usernameLookupRoute(directory, '/usernames/{username}', 'public'),
    usernameLookupRoute(directory, '/users/by-username/{username}', 'internal'),
    nip05Route(directory, true),
    nip05Route(directory, false),
    nip05PreflightRoute(true),
    nip05PreflightRoute(false),
    defineRoute({
      method: 'POST',
      path: '/keys',
      operationId: 'registerKey',
      errors: ['key_invalid', 'key_proof_invalid'],
      summary: "Register or replace one of the caller's receiving keys",
      description:
        'Upsert on (user, asset, key type). Grin values are routed by form: a grin1/tgrin1 bech32 address goes to the slatepack-address row, a hex key to the primary row. With `signature` (the key signing the key-registration message, docs/wallet-integration.md) the key is stored as proven; only proven keys log in on websites and resolve a Grin address to its owner.',
      tags: ['directory'],
      auth: 'bearer',
      body: registerKeyRequest,
      response: userKeyInfo,
      statuses: { 400: 'Invalid asset, key or key proof' },
      handler: ({ auth, body }) => directory.registerKey(auth.userId, body),
    }),
    defineRoute({
      method: 'GET',
      path: '/users/{user_id}/keys',
      operationId: 'listUserKeys',
      summary: "A user's registered keys",
      tags: ['directory'],
      auth: 'none',
      params: userIdParams,
      response: userKeysResponse,
      statuses: { 400: 'user_id is not a UUID' },
      handler: ({ params }) => directory.userKeys(params.user_id),
    }),
    defineRoute({
      method: 'GET',
      path: '/users/{user_id}/keys/{asset}',
      operationId: 'getUserKey',
      errors: ['key_not_found'],
      summary: "A user's receiving key for one asset",
      tags: ['directory'],
      auth: 'none',
      params: userAssetParams,
      response: userKeyInfo,
      statuses: { 400: 'user_id is not a UUID or the asset is unknown', 404: 'No key for this asset' },
      handler: ({ params }) => directory.userKey(params.user_id, params.asset),
    }),
    defineRoute({
      method: 'GET',
      path: '/users/me/username',
      operationId: 'getMyUsername',
      summary: "The caller's username",
      tags: ['directory'],
      auth: 'bearer',
      response: myUsernameResponse,
      handler: ({ auth }) => usernames.get(auth.userId),
    }),
    defineRoute({
      method: 'POST',
      path: '/users/me/username',
      operationId: 'setMyUsername',
      errors: ['username_invalid', 'username_unavailable'],
      summary: "Set the caller's username",
      description: 'Lower-cased; 3 to 30 characters of a-z, 0-9 and underscore; reserved handles refused.',
      tags: ['directory'],
      auth: 'bearer',
      body: setUsernameRequest,
      response: setUsernameResponse,
      statuses: { 400: 'Not a valid username', 409: 'Taken or reserved' },
      handler: ({ auth, body }) => usernames.set(auth.userId, body.username),
    }),
    defineRoute({
      method: 'GET',
      path: '/wallet/grin/address/{addr}/user',
      operationId: 'getGrinAddressOwner',
      summary: 'The registered owner of a Grin address or key',
      description: 'Constant shape: `registered: false` with null fields when nobody registered it.',
      tags: ['directory', 'grin'],
      auth: 'bearer',
      params: grinAddressParams,
      response: grinAddressUserResponse,
      handler: ({ params }) => directory.grinAddressOwner(params.addr),
    }),
  ];
}
