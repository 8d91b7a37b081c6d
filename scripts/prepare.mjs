#!/usr/bin/env node
// npm's `prepare` for the repository root: `npm install` / `npm ci` run it after installing.
//
// - With the dev dependencies installed (`npm install`, `npm ci`), it builds the workspace:
//   `tsc -b`, then the relay admission's one-file executable
//   (packages/relay-admission/dist/wallet-relay-admission.mjs, esbuild): `npm run build`.
// - Without them (a production install: `npm ci --omit=dev`, or NODE_ENV=production), it
//   builds nothing. That is only right when the build output is already there (built earlier in
//   this tree, or copied from a build stage); without it the install fails here, naming the
//   build step, instead of leaving a server that cannot start.
//
// Plain Node, no dependencies: it must run on a host that has only the production ones.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));

/** What `npm run start:prod` and `npm run cli:prod` load. */
const BUILD_OUTPUTS = [
  'packages/core/dist/index.js',
  'packages/grin-relay/dist/index.js',
  'packages/tips/dist/index.js',
  'packages/premium/dist/index.js',
  'packages/relay-admission/dist/index.js',
  'packages/erasure/dist/index.js',
  'examples/server/dist/main.js',
  'examples/cli/dist/main.js',
];

const require = createRequire(new URL('../package.json', import.meta.url));
function resolves(request) {
  try {
    return require.resolve(request);
  } catch {
    return undefined;
  }
}

// TypeScript alone does not tell: `npm ci --omit=dev` keeps it, as valibot's optional peer
// (the lockfile marks it devOptional). @types/node is dev-only and the build needs it.
const tsc = resolves('typescript/bin/tsc');
if (tsc !== undefined && resolves('@types/node/package.json') !== undefined) {
  const result = spawnSync(process.execPath, [tsc, '-b'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
  const bundled = spawnSync(process.execPath, ['packages/relay-admission/scripts/bundle.mjs'], { cwd: root, stdio: 'inherit' });
  process.exit(bundled.status ?? 1);
}

const missing = BUILD_OUTPUTS.filter((file) => !existsSync(new URL(`../${file}`, import.meta.url)));
if (missing.length === 0) {
  process.stdout.write('prepare: no dev dependencies (production install); using the existing build output\n');
  process.exit(0);
}
process.stderr.write(
  `prepare: no dev dependencies (production install) and the build output is missing (${missing.join(', ')}).\n` +
    'Build first with the dev dependencies: `npm ci && npm run build`, then `npm ci --omit=dev` (see docs/operators.md, Production install).\n',
);
process.exit(1);
