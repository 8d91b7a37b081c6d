import { isWalletError, upstreamFailureOf } from '../errors/index.js';
import type { MetricsRecorder, UpstreamLabels, UpstreamOutcome } from './recorder.js';

/** Methods that manage the client itself rather than call the upstream. */
const NOT_CALLS = new Set<PropertyKey>(['constructor', 'close']);

function outcomeOf(err: unknown): UpstreamOutcome {
  return isWalletError(err) && err.status < 500 ? 'refused' : 'error';
}


/**
 * The same client, with every method that returns a promise timed and counted under
 * `labels` and the method's name. Methods run on the real client, so calls it makes to
 * itself are not counted twice. With metrics off the client is returned as it is.
 */
export function instrumentUpstream<T extends object>(client: T, labels: UpstreamLabels, recorder: MetricsRecorder | null): T {
  if (recorder === null) return client;
  return new Proxy(client, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || NOT_CALLS.has(property) || typeof property !== 'string') return value;
      const method = value as (...args: unknown[]) => unknown;
      return (...args: unknown[]) => {
        const started = performance.now();
        const result = method.apply(target, args);
        if (!(result instanceof Promise)) return result;
        return result.then(
          (answer) => {
            recorder.upstream(labels, property, 'ok', (performance.now() - started) / 1000);
            return answer;
          },
          (err: unknown) => {
            recorder.upstream(labels, property, outcomeOf(err), (performance.now() - started) / 1000, upstreamFailureOf(err)?.reason);
            throw err;
          },
        );
      };
    },
  });
}
