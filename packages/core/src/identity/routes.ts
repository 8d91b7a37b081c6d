import { authResponse } from '../auth/index.js';
import { defineRoute, type AnyRoute } from '../http/index.js';
import type { ExtensionLoginService } from './extension-service.js';
import type { NostrIdentityService } from './nostr-service.js';
import type { RestoreCheckService } from './restore-service.js';
import {
  checkRestoreRequest,
  checkRestoreResponse,
  extensionRequest,
  nonceResponse,
  nostrLinkRequest,
  nostrLinkResponse,
  nostrRegisterRequest,
  websiteChallengeRequest,
  websiteChallengeResponse,
  websiteVerifyRequest,
} from './schemas.js';
import type { WebsiteLoginService } from './website-service.js';

export interface IdentityServices {
  extension: ExtensionLoginService;
  restore: RestoreCheckService;
  nostr: NostrIdentityService;
  website: WebsiteLoginService;
}

const nonceBody = (issued: { nonce: string; purpose: string; expiresAt: Date }) => ({ nonce: issued.nonce, purpose: issued.purpose, expires_at: issued.expiresAt.toISOString() });

export function identityRoutes(services: IdentityServices): AnyRoute[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/auth/extension',
      operationId: 'loginWithExtension',
      errors: ['proof_invalid', 'proof_expired', 'proof_replayed', 'key_mismatch', 'duplicate_key', 'identity_conflict', 'key_invalid', 'key_proof_invalid', 'pow_required', 'pow_invalid', 'invite_invalid', 'payment_required', 'payment_invalid', 'account_suspended', 'account_erasure_pending'],
      summary: 'Register or log in with the BTC key (signed timestamp)',
      description: 'See docs/wallet-integration.md for the exact message. A known pubkey_hash logs in; a new one registers through the registration gates.',
      tags: ['auth'],
      auth: 'none',
      body: extensionRequest,
      response: authResponse,
      statuses: { 400: 'Invalid input or a key that does not match the proven BTC key', 401: 'Proof invalid, outside the time window or replayed', 409: 'Registered concurrently', 403: 'The account is suspended by the operator (account_suspended), or a plugin\'s session guard refuses new sessions for it (a confirmed account erasure: account_erasure_pending)' },
      handler: ({ body, clientIp }) => services.extension.login(body, clientIp),
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/check-restore',
      operationId: 'checkRestore',
      errors: ['restore_limited'],
      summary: 'Does a restored seed belong to a registered wallet?',
      tags: ['auth'],
      auth: 'none',
      body: checkRestoreRequest,
      response: checkRestoreResponse,
      statuses: { 429: 'Per-IP or per-fingerprint restore governor tripped' },
      handler: ({ body, clientIp }) => services.restore.check(body, clientIp),
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/nostr',
      operationId: 'loginWithNostr',
      errors: ['proof_invalid', 'proof_replayed', 'nostr_not_linked', 'account_suspended', 'account_erasure_pending'],
      summary: 'Log in with a linked Nostr key (NIP-98 `Authorization: Nostr …`)',
      tags: ['auth'],
      auth: 'none',
      response: authResponse,
      statuses: { 401: 'Invalid NIP-98 proof or the npub is not linked', 403: 'The account is suspended by the operator (account_suspended), or a plugin\'s session guard refuses new sessions for it (a confirmed account erasure: account_erasure_pending)' },
      handler: ({ headers, rawBody, clientIp }) => services.nostr.login(headers.authorization, rawBody, clientIp),
    }),
    defineRoute({
      method: 'GET',
      path: '/auth/nostr/link-challenge',
      operationId: 'getNostrLinkChallenge',
      summary: 'A single-use nonce for linking a Nostr key to the caller',
      tags: ['auth'],
      auth: 'bearer',
      response: nonceResponse,
      handler: async ({ auth }) => nonceBody(await services.nostr.linkChallenge(auth.userId)),
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/nostr/link',
      operationId: 'linkNostr',
      errors: ['proof_invalid', 'proof_replayed', 'nonce_invalid', 'nostr_already_linked', 'account_nostr_linked'],
      summary: "Link a Nostr key to the caller's account (signed action `nostr_link`)",
      tags: ['auth'],
      auth: 'bearer',
      body: nostrLinkRequest,
      response: nostrLinkResponse,
      statuses: { 401: 'Invalid proof or nonce', 409: 'The npub is linked to another account, or this account to another npub' },
      handler: ({ auth, body }) => services.nostr.link(auth.userId, body.nostr_token, body.nonce),
    }),
    defineRoute({
      method: 'GET',
      path: '/auth/nostr/register-challenge',
      operationId: 'getNostrRegisterChallenge',
      summary: 'A single-use nonce for Nostr registration',
      tags: ['auth'],
      auth: 'none',
      response: nonceResponse,
      handler: async () => nonceBody(await services.nostr.registerChallenge()),
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/nostr/register',
      operationId: 'registerWithNostr',
      errors: ['proof_invalid', 'proof_replayed', 'nonce_invalid', 'seed_registered_elsewhere', 'nostr_already_linked', 'identity_conflict', 'duplicate_key', 'key_invalid', 'key_proof_invalid', 'pow_required', 'pow_invalid', 'invite_invalid', 'payment_required', 'payment_invalid', 'account_suspended', 'account_erasure_pending'],
      summary: 'Register or log in by Nostr key (signed action `nostr_register`)',
      tags: ['auth'],
      auth: 'none',
      body: nostrRegisterRequest,
      response: authResponse,
      statuses: { 400: 'Invalid input', 401: 'Invalid proof or nonce', 409: 'The proven wallet is registered under another Nostr identity, or the npub is linked to another account', 403: 'The account is suspended by the operator (account_suspended), or a plugin\'s session guard refuses new sessions for it (a confirmed account erasure: account_erasure_pending)' },
      handler: ({ body, clientIp }) => services.nostr.register(body, clientIp),
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/website/challenge',
      operationId: 'createWebsiteChallenge',
      errors: ['website_origin_invalid'],
      summary: 'An origin-bound challenge for website login',
      tags: ['auth'],
      auth: 'none',
      body: websiteChallengeRequest,
      response: websiteChallengeResponse,
      statuses: { 400: 'Invalid origin' },
      handler: ({ body }) => services.website.challenge(body.origin),
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/website/verify',
      operationId: 'loginWithWebsite',
      errors: ['website_origin_invalid', 'website_asset_invalid', 'website_signature_format', 'website_challenge_invalid', 'website_signature_invalid', 'website_wallet_unknown', 'account_suspended', 'account_erasure_pending'],
      summary: 'Log in on a website by signing its challenge with a registered key',
      tags: ['auth'],
      auth: 'none',
      body: websiteVerifyRequest,
      response: authResponse,
      statuses: { 400: 'Invalid asset or signature format', 401: 'Invalid or expired challenge, invalid signature or unknown wallet', 403: 'The account is suspended by the operator (account_suspended), or a plugin\'s session guard refuses new sessions for it (a confirmed account erasure: account_erasure_pending)' },
      handler: ({ body, headers, clientIp }) => services.website.verify(body, headers.origin, clientIp),
    }),
  ];
}
