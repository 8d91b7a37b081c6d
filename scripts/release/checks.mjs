// The release's manifest and tarball rules, apart from the packing so the suite can test them on
// manifests it makes up (test/examples/release.test.ts).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

export const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));

/** The workspace folders, from the root manifest's `<dir>/*` globs. */
export function workspaceDirs(root, rootManifest) {
  return rootManifest.workspaces.flatMap((pattern) => {
    if (!pattern.endsWith('/*')) throw new Error(`workspace pattern ${pattern} is not of the form <dir>/*`);
    const parent = join(root, pattern.slice(0, -2));
    return readdirSync(parent, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(join(parent, entry.name, 'package.json')))
      .map((entry) => join(parent, entry.name));
  });
}

/** Every problem that would make the set of tarballs inconsistent or unpublishable. */
export function manifestProblems(root, rootManifest, packages) {
  const { version } = rootManifest;
  const names = new Set(packages.map(({ manifest }) => manifest.name));
  const problems = [];
  for (const { dir, manifest } of packages) {
    const where = relative(root, dir);
    if (manifest.version !== version) problems.push(`${where}: version ${manifest.version}, the release is ${version}`);
    if (manifest.private) problems.push(`${where}: "private": true cannot be published`);
    if (manifest.name.startsWith('@') && manifest.publishConfig?.access !== 'public') problems.push(`${where}: a scoped package needs "publishConfig": { "access": "public" }`);
    if (!Array.isArray(manifest.files)) problems.push(`${where}: no "files" list (everything in the folder would ship)`);
    if (JSON.stringify(manifest.engines) !== JSON.stringify(rootManifest.engines)) problems.push(`${where}: engines ${JSON.stringify(manifest.engines)} differ from the root's ${JSON.stringify(rootManifest.engines)}`);
    for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
      for (const [dep, range] of Object.entries(manifest[field] ?? {})) {
        if (names.has(dep) && range !== version) problems.push(`${where}: ${field}.${dep} is "${range}", must be exactly "${version}"`);
      }
    }
  }
  return problems;
}

/** What `npm pack` would put in the tarball that must not be there, or is missing. */
export function contentProblems(manifest, files) {
  const paths = new Set(files.map((file) => file.path));
  const problems = files.filter((file) => file.path.endsWith('.tsbuildinfo')).map((file) => `${manifest.name}: ships ${file.path} (${file.size} bytes)`);
  const entries = [];
  for (const target of Object.values(manifest.exports ?? {})) {
    if (typeof target === 'string') entries.push(target);
    else entries.push(target.default, target.types);
  }
  entries.push(...Object.values(manifest.bin ?? {}));
  if (typeof manifest.main === 'string') entries.push(manifest.main);
  for (const entry of entries.filter(Boolean)) {
    const path = entry.replace(/^\.\//, '');
    if (!paths.has(path)) problems.push(`${manifest.name}: the tarball lacks ${path}`);
  }
  return problems;
}

