#!/usr/bin/env node
// Builds dist/wallet-relay-admission.mjs: the relay admission executable as one self-contained
// file, for a relay host that has Node but not this workspace (docs/relay-operators.md).
//
// - ESM for Node 24, a `#!/usr/bin/env node` line, mode 0755.
// - Everything inside (commander, core, knex, pg, nostr-tools, gRPC and the nauthz proto's text),
//   built from the TypeScript sources through the `wallet-source` export condition, so it needs
//   no `tsc -b` first.
// - Outside: better-sqlite3 (a native module: installed next to the file's real location, or on
//   NODE_PATH, for a SQLite wallet database) and the knex drivers this executable never loads.
//   knex loads its driver with `require`: the banner gives the module a `require` of its own
//   location, so `require('better-sqlite3')` resolves from where the file really is (Node follows
//   a symlinked executable to its real path) and from NODE_PATH.
//
// Run by the root `prepare` (npm install / npm ci) and `npm run release`; by hand:
// `npm run bundle -w @wallet/relay-admission`. Needs esbuild (a root dev dependency).
import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const pkg = fileURLToPath(new URL('../', import.meta.url));
const ENTRY = join(pkg, 'src', 'bin.ts');
export const OUTFILE = join(pkg, 'dist', 'wallet-relay-admission.mjs');
const PROTO_DIR = join(pkg, 'proto');

/** Resolved at run time from the file's own location (native, or never loaded by this executable). */
const EXTERNAL = [
  'better-sqlite3',
  // pg's optional native binding; knex's other dialects' drivers and Postgres streaming.
  'pg-native',
  'pg-query-stream',
  'sqlite3',
  'mysql',
  'mysql2',
  'mariadb',
  'mariadb/*',
  'oracledb',
  'tedious',
];

/** What the bundle carries inside: core's "is the driver installed?" answers yes for these without looking on disk. */
const BUNDLED_DRIVERS = ['knex', 'pg'];

const SHEBANG = '#!/usr/bin/env node\n';
/** The oldest Node the package's engines accept (`^24.11.0`): older ones fail in obscure ways (better-sqlite3 13's binary crashes Node 20). */
const MIN_NODE = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')).engines.node.replace(/^\^/, '');
if (!/^\d+\.\d+\.\d+$/.test(MIN_NODE)) throw new Error(`engines.node ${MIN_NODE}: expected ^<major>.<minor>.<patch>`);

const BANNER = [
  '// wallet-relay-admission: the relay admission executable as one file (built by packages/relay-admission/scripts/bundle.mjs).',
  "import { createRequire as __walletCreateRequire } from 'node:module';",
  'const require = __walletCreateRequire(import.meta.url);',
  `{ const [a, b, c] = process.versions.node.split('.').map(Number), [x, y, z] = ${JSON.stringify(MIN_NODE.split('.').map(Number))};`,
  `  if (a < x || (a === x && (b < y || (b === y && c < z)))) { process.stderr.write('wallet-relay-admission: needs Node ${MIN_NODE} or newer; this is ' + process.version + '\\n'); process.exit(2); } }`,
].join('\n');

/**
 * The shipped .proto files, by file name: grpc.ts loads proto/nauthz.proto next to the package,
 * which a single file does not have. Its `@grpc/proto-loader` import is given a `loadSync` that
 * parses the embedded text with the very options grpc.ts passes (protobufjs's parse, as
 * proto-loader's own loadSync does, then its fromJSON); any other file goes to the real loader.
 */
function embeddedProtos() {
  const protos = {};
  for (const name of readdirSync(PROTO_DIR).filter((file) => file.endsWith('.proto'))) protos[name] = readFileSync(join(PROTO_DIR, name), 'utf8');
  if (Object.keys(protos).length === 0) throw new Error(`no .proto files in ${PROTO_DIR}`);
  return protos;
}

const walletBundle = {
  name: 'wallet-bundle',
  setup(b) {
    const src = join(pkg, 'src') + '/';
    const connectTs = fileURLToPath(new URL('../../core/src/storage/connect.ts', import.meta.url));

    b.onResolve({ filter: /^@grpc\/proto-loader$/ }, (args) => (args.importer.startsWith(src) ? { path: 'proto-loader', namespace: 'wallet-bundle' } : undefined));
    b.onResolve({ filter: /^node:module$/ }, (args) => (args.importer === connectTs ? { path: 'module', namespace: 'wallet-bundle' } : undefined));

    b.onLoad({ filter: /^proto-loader$/, namespace: 'wallet-bundle' }, () => ({
      resolveDir: pkg,
      loader: 'js',
      contents: `
import * as realLoader from '@grpc/proto-loader';
import protobuf from 'protobufjs';
export * from '@grpc/proto-loader';
const PROTOS = ${JSON.stringify(embeddedProtos())};
const embedded = (filename) => {
  const name = String(filename).replace(/\\\\/g, '/').split('/').pop();
  return Object.hasOwn(PROTOS, name) && String(filename).replace(/\\\\/g, '/').endsWith('/proto/' + name) ? PROTOS[name] : undefined;
};
export function loadSync(filename, options) {
  const text = typeof filename === 'string' ? embedded(filename) : undefined;
  if (text === undefined) return realLoader.loadSync(filename, options);
  const parsed = protobuf.parse(text, new protobuf.Root(), options ?? {});
  if ((parsed.imports ?? []).length > 0 || (parsed.weakImports ?? []).length > 0) throw new Error(filename + ': an embedded proto cannot import other files');
  return realLoader.fromJSON(parsed.root.toJSON(), options);
}
`,
    }));

    // core's connect() asks, before building knex, whether the driver is installed, resolving it
    // from knex's folder: in the bundle knex and pg are inside (nothing to find on disk), and
    // better-sqlite3 is found as the banner's require finds it.
    b.onLoad({ filter: /^module$/, namespace: 'wallet-bundle' }, () => ({
      resolveDir: pkg,
      loader: 'js',
      contents: `
import { createRequire as nodeCreateRequire } from 'node:module';
export * from 'node:module';
const BUNDLED = new Set(${JSON.stringify(BUNDLED_DRIVERS)});
export function createRequire() {
  const own = nodeCreateRequire(import.meta.url);
  const resolve = (request, options) => (BUNDLED.has(request) ? 'bundled:' + request : own.resolve(request, options));
  resolve.paths = own.resolve.paths;
  return Object.assign((id) => own(id), own, { resolve });
}
`,
    }));
  },
};

const result = await build({
  entryPoints: [ENTRY],
  outfile: OUTFILE,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node24',
  conditions: ['wallet-source'],
  external: EXTERNAL,
  banner: { js: BANNER },
  plugins: [walletBundle],
  minify: false,
  legalComments: 'none',
  logLevel: 'warning',
  logOverride: { 'empty-import-meta': 'silent' },
  metafile: true,
});

// esbuild puts the entry's own `#!` line (bin.ts has one) above the banner; one is written if it has none.
const text = readFileSync(OUTFILE, 'utf8');
if (!text.startsWith('#!')) writeFileSync(OUTFILE, SHEBANG + text);
else if (!text.startsWith(SHEBANG)) throw new Error(`${OUTFILE}: the entry's #! line is not ${SHEBANG.trim()}`);
chmodSync(OUTFILE, 0o755);
const inputs = Object.keys(result.metafile.inputs).length;
process.stderr.write(`bundle: ${basename(OUTFILE)} ${(statSync(OUTFILE).size / 1024).toFixed(0)} kB from ${inputs} modules (better-sqlite3 outside)\n`);
