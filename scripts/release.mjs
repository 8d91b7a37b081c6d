#!/usr/bin/env node
// `npm run release [-- --out <dir>]`: every workspace package as a versioned tarball, ready to
// install with `npm install ./<tarball>` until the packages are on a registry.
//
// 1. Checks the manifests: every workspace carries the root's version, every dependency on another
//    workspace names exactly that version (a range would let npm mix releases), the package is
//    publishable (not private, public access for the scope, a `files` list), and its engines
//    match the root's.
// 2. Builds the workspace (`tsc -b`) and the relay admission's one-file executable
//    (packages/relay-admission/scripts/bundle.mjs), which ships in its tarball (dist/) and beside
//    the tarballs as wallet-relay-admission-<version>.mjs, for a relay host without the workspace.
// 3. Packs each package into <out> (default ./release), refusing a tarball that would ship a
//    `.tsbuildinfo` or lacks one of its entry points or bins.
// 4. Runs `npm publish --dry-run` on each tarball: what a publish would accept, without one.
// 5. Writes SHA256SUMS (the tarballs and the executable) and prints the install commands.
//
// Plain Node, no dependencies beyond npm and the dev tools the build needs.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { contentProblems, manifestProblems, readJson, workspaceDirs } from './release/checks.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));

function fail(lines) {
  process.stderr.write(`release: refused\n${lines.map((line) => `  - ${line}`).join('\n')}\n`);
  process.exit(1);
}

function parseArgs(argv) {
  let out = join(root, 'release');
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--out' && argv[i + 1] !== undefined) out = resolve(argv[++i]);
    else if (argv[i] === '--help' || argv[i] === '-h') {
      process.stdout.write('usage: npm run release [-- --out <dir>]\n');
      process.exit(0);
    } else fail([`unknown argument ${argv[i]}`]);
  }
  return { out };
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options });
  if (result.status !== 0) {
    process.stderr.write(result.stdout ?? '');
    process.stderr.write(result.stderr ?? '');
    fail([`${command} ${args.join(' ')} exited with ${result.status ?? result.signal}`]);
  }
  return result.stdout;
}

/**
 * Makes `out` ready for this release without deleting anything the release did not write: a
 * folder holding the checkout, or one with files but no release.json, is refused; in an earlier
 * release's folder only its tarballs, SHA256SUMS and release.json are removed.
 */
function prepareOut(dir) {
  const inside = relative(dir, root);
  if (inside === '' || (!inside.startsWith('..') && !isAbsolute(inside))) fail([`--out ${dir} holds the checkout; give a folder of its own (default: release/)`]);
  if (existsSync(dir)) {
    const entries = readdirSync(dir);
    if (entries.length > 0 && !entries.includes('release.json')) fail([`--out ${dir} is not empty and holds no earlier release (release.json); give an empty or new folder`]);
    for (const entry of entries) {
      if (entry.endsWith('.tgz') || STANDALONE.test(entry) || entry === 'SHA256SUMS' || entry === 'release.json') rmSync(join(dir, entry));
    }
  }
  mkdirSync(dir, { recursive: true });
}

/** The relay admission executable, built into its package's dist/ and shipped beside the tarballs too. */
const BUNDLE = 'packages/relay-admission/dist/wallet-relay-admission.mjs';
const STANDALONE = /^wallet-relay-admission-.+\.mjs$/;

const { out } = parseArgs(process.argv.slice(2));
const rootManifest = readJson(join(root, 'package.json'));
const packages = workspaceDirs(root, rootManifest).map((dir) => ({ dir, manifest: readJson(join(dir, 'package.json')) }));

process.stderr.write(`release ${rootManifest.version}: ${packages.length} packages, checking manifests\n`);
const problems = manifestProblems(root, rootManifest, packages);
if (problems.length > 0) fail(problems);

prepareOut(out);

process.stderr.write('release: building (tsc -b)\n');
run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-b']);
process.stderr.write('release: bundling the relay admission executable\n');
rmSync(join(root, BUNDLE), { force: true });
run(process.execPath, [join(root, 'packages', 'relay-admission', 'scripts', 'bundle.mjs')]);

const tarballs = [];
for (const { dir, manifest } of packages) {
  const where = relative(root, dir);
  process.stderr.write(`release: packing ${manifest.name} (${where})\n`);
  const [packed] = JSON.parse(run('npm', ['pack', '--json', '--ignore-scripts', '--workspace', where, '--pack-destination', out]));
  const found = contentProblems(manifest, packed.files);
  if (manifest.name === '@wallet/relay-admission' && !packed.files.some((f) => f.path === 'dist/wallet-relay-admission.mjs')) found.push(`${manifest.name}: the tarball lacks dist/wallet-relay-admission.mjs`);
  if (found.length > 0) fail(found);
  const file = join(out, packed.filename);
  process.stderr.write(`release: npm publish --dry-run ${packed.filename}\n`);
  run('npm', ['publish', '--dry-run', '--ignore-scripts', file], { cwd: out });
  const sha256 = createHash('sha256').update(readFileSync(file)).digest('hex');
  tarballs.push({ name: manifest.name, file: packed.filename, size: packed.size, files: packed.entryCount, sha256 });
}

const standalone = `wallet-relay-admission-${rootManifest.version}.mjs`;
copyFileSync(join(root, BUNDLE), join(out, standalone));
chmodSync(join(out, standalone), 0o755);
const executable = { name: 'wallet-relay-admission', file: standalone, size: readFileSync(join(out, standalone)).length, sha256: createHash('sha256').update(readFileSync(join(out, standalone))).digest('hex') };

writeFileSync(join(out, 'SHA256SUMS'), [...tarballs, executable].map(({ sha256, file }) => `${sha256}  ${file}\n`).join(''));
writeFileSync(join(out, 'release.json'), `${JSON.stringify({ version: rootManifest.version, packages: tarballs, executables: [executable] }, null, 2)}\n`);

for (const { name, file, size, files } of tarballs) {
  process.stdout.write(`${name.padEnd(26)} ${file.padEnd(40)} ${(size / 1024).toFixed(1).padStart(7)} kB  ${String(files).padStart(4)} files\n`);
}
process.stdout.write(`${executable.name.padEnd(26)} ${executable.file.padEnd(40)} ${(executable.size / 1024).toFixed(1).padStart(7)} kB  (one file: a relay host needs only Node; docs/relay-operators.md)\n`);
process.stdout.write(`\n${tarballs.length} tarballs and ${standalone} in ${relative(process.cwd(), out) || '.'} (SHA256SUMS, release.json). Install into an app with, for example:\n`);
process.stdout.write(`  npm install ${tarballs.filter(({ name }) => name === '@wallet/backend-core').map(({ file }) => join(out, file)).join(' ')} better-sqlite3\n`);
