import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { expect } from 'chai';

const at = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));
/** Issue 33: the HTTP client plus the BTC/LTC and Nostr builders, as a browser loads them, under 60 kB min+gzip. */
const MAIN_BUDGET = 60 * 1024;

/** An entry bundled for a browser (no Node built-ins resolve), minified; its size raw and gzipped. */
async function browserBundle(entry: string): Promise<{ bytes: number; gzipped: number }> {
  const result = await build({
    entryPoints: [at(entry)],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]!.contents;
  return { bytes: code.length, gzipped: gzipSync(code, { level: 9 }).length };
}

describe('@wallet/client: what a browser loads', () => {
  it('its sources import only each other and the package’s own dependencies, and use no Node global (no node:, no @wallet/*, no test/)', () => {
    const src = at('packages/client/src');
    const manifest = JSON.parse(readFileSync(at('packages/client/package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const dependencies = Object.keys(manifest.dependencies);
    const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
    expect(files.length).to.be.greaterThan(30);
    for (const file of files) {
      const source = readFileSync(join(src, file), 'utf8');
      for (const [, specifier] of source.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)['"]([^'"]+)['"]/g)) {
        if (specifier!.startsWith('.')) {
          expect(join(src, file, '..', specifier!).startsWith(src), `${file} imports ${specifier} from outside the package`).to.equal(true);
          continue;
        }
        const name = specifier!.startsWith('@') ? specifier!.split('/').slice(0, 2).join('/') : specifier!.split('/')[0]!;
        expect(dependencies, `${file} imports ${specifier}`).to.include(name);
      }
      expect(source, `${file} uses a Node global`).not.to.match(/\bBuffer\b|\bprocess\.|\brequire\(/);
    }
  });

  it(`the main entry (HTTP client, BTC/LTC and Nostr proofs, signed actions, ALTCHA, tips) bundles for a browser under ${MAIN_BUDGET / 1024} kB min+gzip`, async function () {
    this.timeout(60_000);
    const main = await browserBundle('packages/client/src/index.ts');
    process.stderr.write(`      main entry: ${(main.bytes / 1024).toFixed(1)} kB minified, ${(main.gzipped / 1024).toFixed(1)} kB gzipped\n`);
    expect(main.gzipped).to.be.below(MAIN_BUDGET);
  });

  it('the Monero/Wownero and Grin entries bundle for a browser too (no Node built-in reachable)', async function () {
    this.timeout(60_000);
    for (const entry of ['packages/client/src/cryptonote/index.ts', 'packages/client/src/grin/index.ts']) {
      const { gzipped } = await browserBundle(entry);
      process.stderr.write(`      ${entry}: ${(gzipped / 1024).toFixed(1)} kB gzipped\n`);
      expect(gzipped).to.be.above(0);
    }
  });
});
