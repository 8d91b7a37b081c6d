// The import() half of sandbox-resolve.mjs (module resolve hooks run on a loader thread).
import { fileURLToPath, pathToFileURL } from 'node:url';
import { redirect } from './sandbox-resolve-redirect.mjs';

export async function resolve(specifier, context, nextResolve) {
  const result = await nextResolve(specifier, context);
  if (!result.url.startsWith('file:') || context.parentURL?.startsWith('file:') !== true) return result;
  const url = new URL(result.url);
  const resolved = fileURLToPath(url);
  const target = redirect(resolved, fileURLToPath(context.parentURL));
  if (target === resolved) return result;
  const moved = pathToFileURL(target);
  moved.search = url.search;
  return { ...result, url: moved.href };
}
