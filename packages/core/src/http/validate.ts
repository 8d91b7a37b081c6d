import * as v from 'valibot';
import { coreErrors, type ErrorDetail } from '../errors/index.js';
import type { AnySchema } from './route.js';

/**
 * Parses one request part with its schema, collecting every issue; failures become one 400
 * `invalid_request` whose details name each offending path (`body.refresh_token`).
 */
export function parseInput(part: 'body' | 'query' | 'params', schema: AnySchema | undefined, value: unknown): unknown {
  if (schema === undefined) return part === 'body' ? undefined : {};
  const result = v.safeParse(schema, value, { abortEarly: false });
  if (result.success) return result.output;
  const details: ErrorDetail[] = result.issues.map((issue) => {
    const dot = v.getDotPath(issue);
    return { path: dot ? `${part}.${dot}` : part, message: issue.message };
  });
  throw coreErrors.create.invalid_request({ details });
}
