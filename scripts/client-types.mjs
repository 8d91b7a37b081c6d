#!/usr/bin/env node
// `npm run client:types`: regenerates packages/client/src/http/api.ts from docs/openapi.json.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { apiTypesOf, readPublishedDocument } from '../packages/client/scripts/api-types.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const target = join(root, 'packages/client/src/http/api.ts');
writeFileSync(target, await apiTypesOf(readPublishedDocument(join(root, 'docs/openapi.json'))));
process.stderr.write(`wrote ${target}\n`);
