import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './processes.js';

/**
 * Vectors made by real wallet software, carried in the repository (test/vectors/README.md gives
 * each set's provenance); WALLET_VECTORS_DIR points the suite at another copy of the same layout.
 */
export const VECTORS_DIR = process.env.WALLET_VECTORS_DIR ?? join(REPO_ROOT, 'test', 'vectors');

/** A vector file, parsed (noble's tiny `json()` loader idea). */
export function loadVectors<T = any>(name: string): T {
  return JSON.parse(readFileSync(join(VECTORS_DIR, name), 'utf8')) as T;
}
