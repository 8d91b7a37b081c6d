// Shared by sandbox-resolve.mjs (require) and sandbox-resolve-hooks.mjs (import).
import { sep } from 'node:path';

const SANDBOX = new RegExp(`^(.*\\${sep})\\.stryker-tmp\\${sep}sandbox-[^\\${sep}]+\\${sep}`);
const NODE_MODULES = `${sep}node_modules${sep}`;

/**
 * The sandbox twin of the absolute path `resolved` when the importing module `parent` is inside
 * a Stryker sandbox and `resolved` is in the checkout's packages/ (outside node_modules/);
 * otherwise `resolved` itself.
 */
export function redirect(resolved, parent) {
  const match = parent === undefined ? null : SANDBOX.exec(parent);
  if (match === null) return resolved;
  const [sandbox, checkout] = match;
  const packages = `${checkout}packages${sep}`;
  if (!resolved.startsWith(packages) || resolved.includes(NODE_MODULES)) return resolved;
  return `${sandbox}packages${sep}${resolved.slice(packages.length)}`;
}
