import { defineRoute, type AnyRoute } from '@wallet/backend-core';
import { adminRequestsQuery, adminRequestsResponse, challengeRequest, challengeResponse, erasureIdParams, erasureResponse, exportResponse, proofRequest, stuckResponse, sweepRunResponse } from './schemas.js';
import type { ErasureService } from './service.js';

// Proof-gated, never by a session token, and not in the public OpenAPI document (spec): docs/erasure.md.
const common = { tags: ['erasure'], auth: 'none' as const, openapi: 'internal' as const };
// The operator's reads: any live admin session (GET), never a user's token; docs/admin.md.
const admin = { tags: ['erasure'], openapi: 'internal' as const, auth: 'admin' as const };
const PROOF = { 400: 'Erasure off, or invalid input', 401: 'The signed proof is invalid (nothing consumed)' };

/** HTTP for erasure and export: translate, call the service, nothing else. */
export function erasureRoutes(service: ErasureService): AnyRoute[] {
  return [
    defineRoute({
      ...common,
      method: 'POST',
      path: '/account/erasure/challenge',
      operationId: 'createErasureChallenge',
      summary: 'A single-use nonce for one erasure or export action',
      body: challengeRequest,
      response: challengeResponse,
      statuses: { 400: 'Erasure off, or an unknown purpose' },
      handler: ({ body }) => service.challenge(body.purpose),
    }),
    defineRoute({
      ...common,
      method: 'POST',
      path: '/account/erasure',
      operationId: 'requestErasure',
      summary: 'Request the erasure of the account whose Nostr key signs the proof',
      body: proofRequest,
      response: erasureResponse,
      statuses: PROOF,
      handler: ({ body }) => service.request(body),
    }),
    defineRoute({
      ...common,
      method: 'POST',
      path: '/account/erasure/{erasure_id}/confirm',
      operationId: 'confirmErasure',
      summary: 'Confirm an erasure request: every session ends now, the erasure runs after the grace period',
      params: erasureIdParams,
      body: proofRequest,
      response: erasureResponse,
      statuses: { ...PROOF, 400: 'Erasure off, invalid input, or the request expired or was cancelled', 404: 'No such request for this account' },
      handler: ({ params, body }) => service.confirm(params.erasure_id, body),
    }),
    defineRoute({
      ...common,
      method: 'DELETE',
      path: '/account/erasure/{erasure_id}',
      operationId: 'cancelErasure',
      summary: 'Cancel an erasure request during its grace period',
      params: erasureIdParams,
      body: proofRequest,
      response: erasureResponse,
      statuses: { ...PROOF, 400: 'Erasure off, invalid input, or past the grace period', 404: 'No such request for this account' },
      handler: ({ params, body }) => service.cancel(params.erasure_id, body),
    }),
    defineRoute({
      ...common,
      method: 'POST',
      path: '/account/export',
      operationId: 'exportAccount',
      summary: 'Export everything the service holds about the account',
      body: proofRequest,
      response: exportResponse,
      statuses: PROOF,
      handler: ({ body }) => service.exportData(body),
    }),
    defineRoute({
      tags: ['erasure'],
      openapi: 'internal',
      auth: 'admin',
      method: 'GET',
      path: '/admin/erasure/stuck',
      operationId: 'listStuckErasures',
      summary: 'Confirmed erasures past their due time and not completed, with their last error',
      response: stuckResponse,
      handler: () => service.stuck(),
    }),
    defineRoute({
      ...admin,
      method: 'GET',
      path: '/admin/erasure/requests',
      operationId: 'listErasureRequests',
      summary: 'Erasure requests in one state, newest first, a page at a time',
      query: adminRequestsQuery,
      response: adminRequestsResponse,
      handler: ({ query }) => service.adminRequests(query),
    }),
    defineRoute({
      ...admin,
      method: 'GET',
      path: '/admin/erasure/sweep',
      operationId: 'getErasureSweep',
      summary: "The erasure sweeper's last run and the next due time",
      response: sweepRunResponse,
      handler: () => service.lastSweep(),
    }),
  ];
}
