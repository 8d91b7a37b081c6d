import type { IncomingMessage, Server, ServerResponse } from 'node:http';

const DRAIN_TIMEOUT_MS = 10_000;
/** After connections were cut, how long handlers still running get before the pool closes under them. */
const HANDLER_GRACE_MS = 2_000;

export type RequestListener = (req: IncomingMessage, res: ServerResponse) => unknown;

/** A listener's requests in flight, and the drain that lets them finish before the pool closes. */
export interface RequestDrain {
  /** Wraps the HTTP server's request listener (a Koa `callback()`, say) so its requests are followed. */
  track(listener: RequestListener): (req: IncomingMessage, res: ServerResponse) => void;
  /**
   * Stops `server` accepting, lets each connection end after its answer (idle ones at once),
   * forces the rest closed after 10 s, then waits (2 s at most) for handlers still running, so
   * the pool is not closed under a request that is still being answered. Call it before
   * `backend.close()`. With `delayMs`, the listener first goes on accepting and answering for
   * that long, every answer saying `Connection: close`: a load balancer sees the process leave
   * and stops sending before any connection is closed under a request on its way.
   */
  drain(server: Server, options?: { delayMs?: number }): Promise<void>;
}

/**
 * The requests a server is answering: each response, and when its handler is done (which can be
 * after its connection went). Once draining, every response not yet started says
 * `Connection: close`, so a keep-alive client that keeps sending (a load balancer, a busy app)
 * ends its connection after the answer instead of holding the server open until the drain
 * timeout; Node's `server.close()` alone leaves such connections serving, and a proxy's pooled
 * connections then keep a stopping process alive for its keep-alive timeout or longer.
 */
export function requestDrain(): RequestDrain {
  const handlers = new Map<ServerResponse, Promise<unknown>>();
  let draining = false;

  /** Every handler that is still running has finished, or `ms` passed. */
  const settled = async (ms: number) => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
    await Promise.race([Promise.allSettled([...handlers.values()]), late]);
    clearTimeout(timer);
  };

  return {
    track(listener) {
      // On every request: one map entry and one reaction on the listener's own promise, nothing more.
      const forget = (res: ServerResponse) => () => void handlers.delete(res);
      return (req, res) => {
        if (draining) res.setHeader('Connection', 'close');
        const done = listener(req, res);
        if (!(done instanceof Promise)) return;
        const gone = forget(res);
        handlers.set(res, done.then(gone, gone));
      };
    },
    async drain(server, { delayMs = 0 } = {}) {
      draining = true;
      for (const res of handlers.keys()) if (!res.headersSent) res.setHeader('Connection', 'close');
      if (server.listening) {
        if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
        await new Promise<void>((resolve) => {
          const force = setTimeout(() => server.closeAllConnections(), DRAIN_TIMEOUT_MS);
          force.unref();
          server.close(() => {
            clearTimeout(force);
            resolve();
          });
          server.closeIdleConnections();
        });
      }
      await settled(HANDLER_GRACE_MS);
    },
  };
}
