import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { fullOpenApiDocument } from '../../harness/index.js';

/**
 * docs/openapi.json is the published contract: the document of a backend with every optional
 * core feature and the Grin relay, without `servers` (that is each operator's PUBLIC_API_URL).
 * Any change to a route, a schema, a summary or a status shows up here and must be reviewed:
 * regenerate with `WALLET_UPDATE_OPENAPI=1 npx mocha test/core/http/openapi-snapshot.test.ts`
 * and commit the diff with the change that caused it.
 */
const PUBLISHED = fileURLToPath(new URL('../../../docs/openapi.json', import.meta.url));

async function current(): Promise<Record<string, unknown>> {
  const { servers: _servers, ...document } = await fullOpenApiDocument();
  return document;
}

describe('OpenAPI: the published document', () => {
  it('docs/openapi.json is the document the code generates', async () => {
    const document = await current();
    const text = `${JSON.stringify(document, null, 2)}\n`;
    if (process.env.WALLET_UPDATE_OPENAPI === '1') writeFileSync(PUBLISHED, text);
    const published = JSON.parse(readFileSync(PUBLISHED, 'utf8')) as unknown;
    expect(document, 'the generated document differs from docs/openapi.json: review the change, then regenerate (see this file)').to.deep.equal(published);
  });
});
