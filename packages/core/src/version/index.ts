import { readFileSync } from 'node:fs';

let cached: string | undefined;

/** The core package's version, read once; a bundle without its package.json reports `unknown`. */
export function coreVersion(): string {
  if (cached !== undefined) return cached;
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
    cached = typeof pkg.version === 'string' ? pkg.version : 'unknown';
  } catch {
    cached = 'unknown';
  }
  return cached;
}
