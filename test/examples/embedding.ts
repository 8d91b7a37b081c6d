import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { TestClient, type TestBackend } from '../harness/index.js';
import { blockAfter, blocksOf, moduleName } from '../docs/doc-blocks.js';

/** What the embedding tests (Express, Fastify) share: docs/embedding.md's recipes and a host's view of the backend. */

/** The backend's log line when a host's body parser read the body first. */
export const CONSUMED = 'the request body was consumed before the wallet backend read it: remove the body parser mounted in front of it (docs/embedding.md)';

/** A client of a host's server, once it listens. */
export async function clientOf(server: Server): Promise<TestClient> {
  if (!server.listening) await once(server, 'listening');
  return new TestClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
}

/** How many sessions are not revoked: what a refused refresh leaves as it was. */
export async function unrevokedSessions(t: TestBackend): Promise<number> {
  return (await t.backend.db.knex('sessions').whereNull('revoked_at').select('id')).length;
}

const RECIPE_FILE = 'docs/embedding.md';
/** docs/embedding.md as a host's developer reads it. */
export const RECIPE = readFileSync(new URL('../../docs/embedding.md', import.meta.url), 'utf8');
const RECIPE_BLOCKS = blocksOf(RECIPE_FILE, RECIPE);

/** The ts block of docs/embedding.md that follows `marker`, verbatim (up to its closing fence). */
export function recipeBlockAfter(marker: string): string {
  expect(RECIPE.indexOf(marker), marker).to.be.greaterThan(-1);
  const block = blockAfter(RECIPE_BLOCKS, RECIPE, marker, 'ts');
  expect(block, `a ts block after ${marker}`).to.not.equal(undefined);
  return `${block!.body}\n`;
}

/** The doc's module block whose first line names it (`// backend.ts`), verbatim. */
export function recipeModule(name: string): string {
  const block = RECIPE_BLOCKS.find((candidate) => candidate.lang === 'ts' && moduleName(candidate) === name);
  expect(block, `the ${name} block`).to.not.equal(undefined);
  return `${block!.body}\n`;
}
