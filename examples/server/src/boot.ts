import { BootError, createWalletBackend, type Logger, type WalletBackend } from '@wallet/backend-core';
import type { ServerConfig } from './config.js';

/**
 * Environment-level problems and core's verdict together, so EVERY violation is listed at
 * once. A core line about a variable the environment check already named is dropped.
 */
function mergeProblems(envProblems: readonly string[], coreProblems: readonly string[]): string[] {
  // A refused NAME_FILE names NAME too: core's "required" line about NAME adds nothing.
  const named = new Set(envProblems.map((line) => line.split(':')[0]!.replace(/_FILE$/, '')));
  const fresh = coreProblems.filter((line) => {
    const envName = /^[\w.]+ \(([A-Z0-9_]+)\):/.exec(line)?.[1];
    return envName === undefined || !named.has(envName);
  });
  return [...envProblems, ...fresh];
}

/** Builds the backend for this configuration or throws one BootError listing every problem. Nothing is connected yet. */
export async function bootBackend(config: ServerConfig, logger: Logger): Promise<WalletBackend> {
  let backend: WalletBackend | undefined;
  let coreProblems: readonly string[] = [];
  try {
    backend = await createWalletBackend({ ...config.backend, logger });
  } catch (err) {
    if (!(err instanceof BootError)) throw err;
    coreProblems = err.problems;
  }
  const problems = mergeProblems(config.problems, coreProblems);
  if (problems.length > 0) {
    await backend?.close();
    throw new BootError(problems);
  }
  return backend!;
}
