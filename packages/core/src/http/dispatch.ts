import type { Context, Middleware } from 'koa';
import { serveThroughKoa, type RouteHandler } from './pipeline.js';
import type { RouteTable } from './route-table.js';

/**
 * The app's own dispatch: the route table's pick, served without the router's per-request work
 * (matching every pattern, composing the matched layers), and the router for everything the
 * table leaves to it (odd spellings, HEAD, 404 and 405). Layers a host adds to
 * `backend.router` later come after the declared routes, where the router would not reach them
 * for a declared route either; for any other path they are served through the router.
 */
export function dispatchThroughTable(table: RouteTable<RouteHandler>): Middleware {
  return (ctx: Context, next) => {
    const match = table.find(ctx.method, ctx.path);
    if (match === undefined) return next();
    (ctx as Context & { params: Record<string, string> }).params = match.params;
    return serveThroughKoa(ctx, match.handler);
  };
}
