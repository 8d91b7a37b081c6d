import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { REPO_ROOT } from '../../harness/processes.js';

/** The bundled bare server, and the removal of its folder once the run is over. */
export interface BareBundle {
  server: string;
  remove(): void;
}

/**
 * The bare server as plain JavaScript, as the wallet runs from examples/server/dist: bundled by
 * esbuild into a folder of this run's own under `test/bench/results/` (`<prefix>-XXXXXX`,
 * ignored by git; two runs on one checkout never rewrite each other's files), with its npm
 * dependencies left as imports so both servers resolve koa, knex and the drivers from
 * node_modules alike (so the folder must be inside the repository). The Grin scan worker is
 * bundled beside it as `scan-worker.js`, where the scan pool looks for its worker. Run through
 * tsx instead, the bare server would carry tsx's loader and compiled-source caches in its heap,
 * which the wallet does not: its memory could not be set beside the wallet's.
 */
export async function bareServerBundle(prefix: string): Promise<BareBundle> {
  const results = join(REPO_ROOT, 'test/bench/results');
  mkdirSync(results, { recursive: true });
  const outdir = mkdtempSync(join(results, `${prefix}-`));
  const remove = () => rmSync(outdir, { recursive: true, force: true });
  try {
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
  } catch (err) {
    remove();
    throw err;
  }
  return { server: join(outdir, 'bare-server.js'), remove };
}
