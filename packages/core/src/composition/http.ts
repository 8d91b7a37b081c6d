import Router from '@koa/router';
import Koa from 'koa';
import { coreErrors } from '../errors/index.js';
import { directListener, dispatchThroughTable, fullPath, requestBoundary, routeHandler, routeMiddleware, RouteTable, toRouterPath, type AnyRoute, type RouteKit } from '../http/index.js';
import type { Logger } from '../logger/index.js';

export interface MountedApi {
  readonly app: Koa;
  readonly router: Router;
  /**
   * The listener of `start()` and `callback()`, made when asked for (as Koa composes `app`'s
   * middleware then): declared routes served directly while `app` begins with the backend's
   * own two layers; a host that put middleware in front of them (the reference server's CORS)
   * gets Koa for every request, so that middleware sees them all.
   */
  listener(): ReturnType<Koa['callback']>;
}

/**
 * Every route, three ways in, one handler each: the route table (what `app` and the direct
 * listener dispatch through), the router an embedder mounts, and Koa's JSON 404/405 for the rest.
 * test/core/http/direct.test.ts and dispatch-parity.test.ts hold them to the same answers.
 */
export function mountRoutes(routes: readonly AnyRoute[], kit: RouteKit, logger: Logger): MountedApi {
  const router = new Router();
  const served = routes.map((route) => ({ method: route.method, path: fullPath(route), handler: routeHandler(route, kit), route }));
  for (const { route, path, handler } of served) router.register(toRouterPath(path), [route.method], routeMiddleware(route, kit, handler));
  const table = new RouteTable(served);
  const boundaryLayer = requestBoundary(logger, kit.metrics);
  const tableLayer = dispatchThroughTable(table);
  const app = new Koa({ proxy: false });
  app.silent = true;
  app.use(boundaryLayer);
  app.use(tableLayer);
  app.use(router.routes());
  app.use(
    router.allowedMethods({
      throw: true,
      methodNotAllowed: () => coreErrors.create.method_not_allowed(),
      notImplemented: () => coreErrors.create.method_not_allowed(),
    }),
  );
  const listener = () => {
    const koa = app.callback();
    return app.middleware[0] === boundaryLayer && app.middleware[1] === tableLayer ? directListener(table, koa, logger, kit.metrics) : koa;
  };
  return { app, router, listener };
}
