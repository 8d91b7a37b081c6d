import { expect } from 'chai';
import { eachDialect, HOSTILE_BODIES, seedSession, useTestBackend } from '../../harness/index.js';

interface Operation {
  method: string;
  path: string;
  bearer: boolean;
}

/** Every documented operation that takes a JSON body, from the generated OpenAPI document. */
function bodyOperations(document: any): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries<Record<string, any>>(document.paths)) {
    for (const [method, operation] of Object.entries<any>(item)) {
      if (!operation.requestBody) continue;
      const concrete = path.replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000');
      operations.push({ method: method.toUpperCase(), path: concrete, bearer: (operation.security ?? []).length > 0 });
    }
  }
  return operations;
}

eachDialect('hostile request bodies', (dialect) => {
  const t = useTestBackend(dialect);

  it('every body-taking route answers hostile bodies with a 4xx error body, never a 5xx, and changes nothing', async () => {
    const { auth } = await seedSession(t.backend);
    const operations = bodyOperations(t.backend.openapi());
    expect(operations.length).to.be.greaterThan(1);
    const before = await t.backend.db.knex('sessions').select('id', 'revoked_at').orderBy('id');
    for (const { method, path, bearer } of operations) {
      for (const { label, raw } of HOSTILE_BODIES) {
        const res = await t.client.request(method, path, {
          raw,
          headers: { 'content-type': 'application/json' },
          ...(bearer ? { token: auth.access_token } : {}),
        });
        const where = `${method} ${path} with ${label}`;
        expect(res.status, where).to.be.within(400, 499);
        expect(res.body?.error?.code, where).to.be.a('string');
      }
    }
    expect(await t.backend.db.knex('sessions').select('id', 'revoked_at').orderBy('id')).to.deep.equal(before);
  });
});
