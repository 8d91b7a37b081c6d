import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './processes.js';

/** The shared vectors (made by real wallet software) live beside the checkout: ../shared/vectors. */
export const VECTORS_DIR = process.env.WALLET_VECTORS_DIR ?? join(REPO_ROOT, '..', 'shared', 'vectors');

/** A vector file, parsed (noble's tiny `json()` loader idea). */
export function loadVectors<T = any>(name: string): T {
  return JSON.parse(readFileSync(join(VECTORS_DIR, name), 'utf8')) as T;
}
