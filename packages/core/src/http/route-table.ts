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

/**
 * Finds the route @koa/router would pick for a request, without testing every route's pattern
 * (the router tries all of its ~150 regular expressions on every request, a fifth of what a
 * `/health` cost). Routes are bucketed by method and segment count and tried in registration
 * order, as the router tries its stack; a route without parameters is found by one map lookup
 * when no earlier route can shadow it.
 *
 * It answers only where its answer is certainly the router's: a lower-case ASCII path without
 * empty segments or a trailing slash (the router matches case-insensitively and ignores a
 * trailing slash), a method other than HEAD (which the router adds to GET routes), and
 * nothing past a segment form it does not model. Otherwise `find` returns undefined and the
 * router decides, so 404, 405 and every odd spelling keep the router's answer.
 */
export class RouteTable<H> {
  private readonly exact = new Map<string, H>();
  private readonly buckets = new Map<string, Array<Entry<H>>>();

  constructor(routes: ReadonlyArray<TableRoute<H>>) {
    for (const route of routes) {
      const segments = route.path.split('/').slice(1).map(parseSegment);
      const key = `${route.method} ${segments.length}`;
      const bucket = this.buckets.get(key) ?? [];
      bucket.push({ segments, handler: route.handler });
      this.buckets.set(key, bucket);
    }
    for (const route of routes) {
      const segments = route.path.split('/').slice(1);
      if (!segments.every((text) => 'literal' in parseSegment(text))) continue;
      const path = `/${segments.map((text) => text.toLowerCase()).join('/')}`;
      // Only when the scan itself would pick this route for its own path (no earlier pattern shadows it).
      if (this.scan(route.method, path)?.handler === route.handler) this.exact.set(`${route.method} ${path}`, route.handler);
    }
  }

  find(method: string, path: string): TableMatch<H> | undefined {
    if (!PLAIN_PATH.test(path)) return undefined;
    const handler = this.exact.get(`${method} ${path}`);
    if (handler !== undefined) return { handler, params: {} };
    return this.scan(method, path);
  }

  private scan(method: string, path: string): TableMatch<H> | undefined {
    const parts = path.split('/').slice(1);
    const bucket = this.buckets.get(`${method} ${parts.length}`);
    if (bucket === undefined) return undefined;
    for (const entry of bucket) {
      let params: Record<string, string> | undefined = {};
      for (let i = 0; i < parts.length && params !== undefined; i++) {
        const segment = entry.segments[i]!;
        if ('opaque' in segment) return undefined;
        if ('literal' in segment) {
          if (segment.literal !== parts[i]) params = undefined;
        } else {
          params[segment.param] = decode(parts[i]!);
        }
      }
      if (params !== undefined) return { handler: entry.handler, params };
    }
    return undefined;
  }
}
