import * as v from 'valibot';
import { coreErrors, type ErrorDetail } from '../errors/index.js';
import type { AnySchema } from './route.js';

type Part = 'body' | 'query' | 'params';

/** One path segment as it may appear in a detail: control characters escaped, never echoed raw. */
function segment(key: string): string {
  return JSON.stringify(key).slice(1, -1);
}

const NONE: readonly string[] = Object.freeze([]);

/** A plain or null-prototype object without own enumerable keys (Koa's `ctx.query` has no prototype). */
function isEmptyObject(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  for (const key in value) if (Object.hasOwn(value, key)) return false;
  return true;
}

/**
 * Every place in `value` (strings and object keys, at any depth) that holds a NUL character.
 * Postgres text cannot store U+0000 (`invalid byte sequence … 0x00`), so no route may be handed
 * one; SQLite would store it, so refusing here keeps both dialects answering alike. Iterative:
 * a deeply nested body must not overflow the stack.
 */
function nulPaths(part: Part, value: unknown): readonly string[] {
  // Most parts are absent or empty (a GET has no body, most routes no query): nothing to walk.
  if (value === undefined || isEmptyObject(value)) return NONE;
  const found: string[] = [];
  const stack: Array<[unknown, string]> = [[value, part]];
  while (stack.length > 0) {
    const [current, path] = stack.pop()!;
    if (typeof current === 'string') {
      if (current.includes('\u0000')) found.push(path);
    } else if (Array.isArray(current)) {
      current.forEach((item, index) => stack.push([item, `${path}.${index}`]));
    } else if (current !== null && typeof current === 'object') {
      for (const [key, item] of Object.entries(current)) {
        const child = `${path}.${segment(key)}`;
        if (key.includes('\u0000')) found.push(child);
        stack.push([item, child]);
      }
    }
  }
  return found;
}

/**
 * Every number in a parsed value that no column or upstream can take exactly: not finite
 * (`1e309` parses to Infinity), or a whole number beyond ±(2^53 − 1), where a JS number stops
 * being exact (a query's `99999999999999999999`, which is also beyond Postgres bigint).
 */
function unsafeNumberPaths(part: Part, value: unknown): string[] {
  const found: string[] = [];
  const seen = new Set<object>();
  const stack: Array<[unknown, string]> = [[value, part]];
  while (stack.length > 0) {
    const [current, path] = stack.pop()!;
    if (typeof current === 'number') {
      if (!Number.isFinite(current) || (Number.isInteger(current) && !Number.isSafeInteger(current))) found.push(path);
    } else if (current !== null && typeof current === 'object' && !seen.has(current)) {
      seen.add(current);
      if (Array.isArray(current)) current.forEach((item, index) => stack.push([item, `${path}.${index}`]));
      else if (Object.getPrototypeOf(current) === Object.prototype || Object.getPrototypeOf(current) === null) {
        for (const [key, item] of Object.entries(current)) stack.push([item, `${path}.${segment(key)}`]);
      }
    }
  }
  return found;
}

/**
 * Parses one request part with its schema, collecting every issue; failures become one 400
 * `invalid_request` whose details name each offending path (`body.refresh_token`).
 *
 * Two rules hold for every route and plugin, whatever its schema says: no string or key may
 * contain a NUL character (checked before the schema runs), and no number in the parsed value
 * may be non-finite or a whole number beyond the safe-integer range (checked after it, so a
 * query's digits turned into a number are caught too). Use `safeIntegerText` for integer
 * query and path parameters so the range is also stated in the schema and the OpenAPI document.
 */
export function parseInput(part: Part, schema: AnySchema | undefined, value: unknown, kitChecks = true): unknown {
  const nul = kitChecks ? nulPaths(part, value) : NONE;
  if (nul.length > 0) throw coreErrors.create.invalid_request({ details: nul.map((path) => ({ path, message: 'must not contain a NUL character' })) });
  if (schema === undefined) return part === 'body' ? undefined : {};
  const result = v.safeParse(schema, value, { abortEarly: false });
  if (!result.success) {
    const details: ErrorDetail[] = result.issues.map((issue) => {
      const dot = v.getDotPath(issue);
      return { path: dot ? `${part}.${dot}` : part, message: issue.message };
    });
    throw coreErrors.create.invalid_request({ details });
  }
  const unsafe = kitChecks ? unsafeNumberPaths(part, result.output) : [];
  if (unsafe.length > 0) throw coreErrors.create.invalid_request({ details: unsafe.map((path) => ({ path, message: 'must be a finite number within ±9007199254740991' })) });
  return result.output;
}

/**
 * A whole number written as decimal digits (query strings and path parameters are text),
 * turned into a number and bounded to `[min, max]`; `max` defaults to the largest safe integer,
 * which also fits every integer column (Postgres bigint included). Refuses signs, leading
 * zeros, and anything longer than 16 digits before converting, so no precision is ever lost.
 *
 * @example
 * query: v.object({ after_seq: v.optional(safeIntegerText({ min: 0 }), '0') })
 */
export function safeIntegerText(options: { min?: number; max?: number; message?: string } = {}) {
  const min = options.min ?? 0;
  const max = options.max ?? Number.MAX_SAFE_INTEGER;
  if (!Number.isSafeInteger(min) || !Number.isSafeInteger(max) || min < 0 || min > max) throw new Error(`safeIntegerText: bad range ${min}..${max}`);
  const message = options.message ?? `must be a whole number from ${min} to ${max}`;
  return v.pipe(
    v.string(message),
    v.regex(/^(?:0|[1-9]\d{0,15})$/, message),
    v.transform(Number),
    v.minValue(min, message),
    v.maxValue(max, message),
  );
}
