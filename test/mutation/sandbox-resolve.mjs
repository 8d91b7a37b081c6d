// Loaded by Stryker's test-runner processes (stryker.config.mjs → testRunnerNodeArgs), after tsx.
//
// Stryker copies the project into a sandbox (.stryker-tmp/sandbox-*/) and mutates the copy, but
// the sandbox's node_modules is a symlink to the real one, whose @wallet/* entries are symlinks
// to the checkout's packages/*. Without this file, `import '@wallet/backend-core'` from a
// sandboxed test loads the pristine packages/core/src of the checkout and every mutant survives
// (measured: conditional.ts scored 0% that way).
//
// So when a module inside a sandbox imports something that resolves into the checkout's
// packages/ (outside any node_modules/), the import is sent to the same file under the sandbox's
// packages/. The decision is made per import from the importing module's path, not from the
// working directory (Stryker starts its workers in the checkout and changes into the sandbox
// afterwards). Both loaders need it: mocha loads spec files with require() when Node supports
// require(esm) (tsx then compiles them to CommonJS), and with import() otherwise.
import Module, { register } from 'node:module';
import { isAbsolute } from 'node:path';
import { redirect } from './sandbox-resolve-redirect.mjs';

// import(): a resolve hook (runs on the loader thread).
register(new URL('./sandbox-resolve-hooks.mjs', import.meta.url));

// require(): wrap the CommonJS resolver (outermost, so it sees tsx's answer).
const original = Module._resolveFilename;
Module._resolveFilename = function resolveFilename(request, parent, ...rest) {
  const resolved = original.call(this, request, parent, ...rest);
  return typeof resolved === 'string' && isAbsolute(resolved) ? redirect(resolved, parent?.filename) : resolved;
};
