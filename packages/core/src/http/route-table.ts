import type { HttpMethod } from './route.js';

/** A route as the table holds it: its method, its OpenAPI-form path (`/api/v1/users/{user_id}/keys`) and what serves it. */
export interface TableRoute<H> {
  method: HttpMethod;
  path: string;
  handler: H;
}

export interface TableMatch<H> {
  handler: H;
  /** The path parameters, percent-decoded as the router decodes them. */
  params: Record<string, string>;
}

type Segment = { literal: string } | { param: string } | { opaque: true };

interface Entry<H> {
  segments: Segment[];
  handler: H;
}

/** Paths the table answers for: lower-case ASCII, no empty segment, no trailing slash. Anything else is the router's. */
const PLAIN_PATH = /^(?:\/[a-z0-9\-._~%!$&'()*+,;=:@]+)+$/;
const WHOLE_PARAM = /^\{([A-Za-z0-9_]+)\}$/;

function parseSegment(text: string): Segment {
  const param = WHOLE_PARAM.exec(text);
  if (param) return { param: param[1]! };
  // A parameter inside a segment (`{id}.json`) is not modelled: reaching one hands the request to the router.
  if (text.includes('{')) return { opaque: true };
  // The router matches case-insensitively; the table only sees lower-case paths.
  return { literal: text.toLowerCase() };
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Whether a route's segments match a request's: certainly, certainly not, or not modelled here (the router decides). */
function compare(segments: readonly Segment[], parts: readonly string[]): 'match' | 'no' | 'unknown' {
  for (let i = 0; i < parts.length; i++) {
    const segment = segments[i]!;
    if ('opaque' in segment) return 'unknown';
    if ('literal' in segment && segment.literal !== parts[i]) return 'no';
  }
  return 'match';
}

function paramsOf(segments: readonly Segment[], parts: readonly string[]): Record<string, string> {
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    if ('param' in segment) params[segment.param] = decode(parts[i]!);
  }
  return params;
}

/**
 * Finds the route @koa/router would pick for a request, without testing every route's pattern
 * (the router tries all of its ~150 regular expressions on every request, a fifth of what a
 * `/health` cost). Routes are bucketed by method and segment count and tried in registration
 * order, as the router tries its stack, so a pattern registered first still shadows a later
 * route without parameters, as it does in the router.
 *
 * It answers only where its answer is certainly the router's: a lower-case ASCII path without
 * empty segments or a trailing slash (the router matches case-insensitively and ignores a
 * trailing slash), a method other than HEAD (which the router adds to GET routes), and
 * nothing past a segment form it does not model. Otherwise `find` returns undefined and the
 * router decides, so 404, 405 and every odd spelling keep the router's answer.
 */
export class RouteTable<H> {
  private readonly buckets = new Map<string, Array<Entry<H>>>();
  /**
   * Paths without parameters, by method then path, each with the route the buckets would pick
   * for it: one hash lookup answers the hottest routes (`/health`, `/auth/me`, NIP-05) without
   * the pattern test, the split and the walk (about 3 % of a `/health`'s CPU in a profile).
   */
  private readonly literal = new Map<string, Map<string, H>>();

  constructor(routes: ReadonlyArray<TableRoute<H>>) {
    for (const route of routes) {
      const segments = route.path.split('/').slice(1).map(parseSegment);
      const key = `${route.method} ${segments.length}`;
      const bucket = this.buckets.get(key) ?? [];
      bucket.push({ segments, handler: route.handler });
      this.buckets.set(key, bucket);
    }
    for (const [key, bucket] of this.buckets) {
      const method = key.slice(0, key.indexOf(' '));
      for (const entry of bucket) {
        if (!entry.segments.every((segment) => 'literal' in segment)) continue;
        const path = `/${entry.segments.map((segment) => (segment as { literal: string }).literal).join('/')}`;
        // Only where the walk itself picks this very route: a plain path, and no route registered
        // before it in the bucket that matches it (and would give parameters) or that the table cannot judge.
        if (!PLAIN_PATH.test(path) || this.walk(bucket, path.split('/').slice(1)) !== entry) continue;
        const paths = this.literal.get(method) ?? new Map<string, H>();
        paths.set(path, entry.handler);
        this.literal.set(method, paths);
      }
    }
  }

  find(method: string, path: string): TableMatch<H> | undefined {
    const handler = this.literal.get(method)?.get(path);
    if (handler !== undefined) return { handler, params: {} };
    if (!PLAIN_PATH.test(path)) return undefined;
    const parts = path.split('/').slice(1);
    const bucket = this.buckets.get(`${method} ${parts.length}`);
    const entry = bucket === undefined ? undefined : this.walk(bucket, parts);
    return entry === undefined ? undefined : { handler: entry.handler, params: paramsOf(entry.segments, parts) };
  }

  /** The bucket's routes in registration order, as the router tries its stack. */
  private walk(bucket: ReadonlyArray<Entry<H>>, parts: readonly string[]): Entry<H> | undefined {
    for (const entry of bucket) {
      const verdict = compare(entry.segments, parts);
      if (verdict === 'unknown') return undefined;
      if (verdict === 'match') return entry;
    }
    return undefined;
  }
}
