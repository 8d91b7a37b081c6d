import { join } from 'node:path';
import { build } from 'esbuild';
import { REPO_ROOT } from '../../harness/processes.js';

/**
 * The bare server as plain JavaScript, as the wallet runs from examples/server/dist: bundled by
 * esbuild into `test/bench/results/<folder>/bare-server.js` (ignored by git), with its npm
 * dependencies left as imports so both servers resolve koa, knex and the drivers from
 * node_modules alike. The Grin scan worker is bundled beside it as `scan-worker.js`, where the
 * scan pool looks for its worker. Run through tsx instead, the bare server would carry tsx's
 * loader and compiled-source caches in its heap, which the wallet does not: its memory could not
 * be set beside the wallet's. Returns the server's path.
 */
export async function bareServerBundle(folder: string): Promise<string> {
  const outdir = join(REPO_ROOT, 'test/bench/results', folder);
  await build({
    entryPoints: { 'bare-server': join(REPO_ROOT, 'test/bench/bare-server.ts'), 'scan-worker': join(REPO_ROOT, 'packages/core/src/chains/grin/scan-worker.ts') },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    packages: 'external',
    outdir,
    logLevel: 'warning',
  });
  return join(outdir, 'bare-server.js');
}
