import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import type { RelayAdmission } from './admission.js';
import { unavailable, type AdmissionDecision } from './policy.js';

/** strfry's `writePolicy.plugin` answer: accept, reject (the client gets OK false + msg) or shadowReject. */
export interface StrfryAnswer {
  id: string;
  action: 'accept' | 'reject' | 'shadowReject';
  msg: string;
}

export interface StrfryPluginOptions {
  admission: RelayAdmission;
  input: Readable;
  output: Writable;
  /** Where problems with input lines are reported (never the event content). */
  warn: (message: string) => void;
  /** A decision taking longer than this is a reject (default 5000 ms, well inside strfry's 10 s `timeoutSeconds`). */
  timeoutMs?: number;
}

export const STRFRY_DEFAULT_TIMEOUT_MS = 5_000;

/** A strfry request line's type and event, or why it cannot be answered (no event id: nobody to answer). */
function requestOf(line: string): { id: string; type: unknown; event: unknown } | { problem: string } {
  let request: unknown;
  try {
    request = JSON.parse(line);
  } catch {
    return { problem: 'a line that is not JSON' };
  }
  const r = request as { type?: unknown; event?: { id?: unknown } } | null;
  if (typeof r !== 'object' || r === null || typeof r.event !== 'object' || r.event === null || typeof r.event.id !== 'string') return { problem: 'a request without event.id' };
  return { id: r.event.id, type: r.type, event: r.event };
}

/**
 * strfry's write-policy plugin protocol (docs/plugins.md of strfry): one JSON request per line
 * on stdin (`{"type":"new","event":{…},"receivedAt","sourceType","sourceInfo","authed"?}`), one
 * minified JSON answer per line on stdout echoing the event id, written as soon as it is decided
 * and in request order. strfry has verified the event's id and signature before it asks. A line
 * that cannot be answered (not JSON, no event id) is reported and skipped, never fatal; a
 * request whose type is not `new` is rejected; a slow decision is rejected at `timeoutMs`.
 * Resolves when the input ends.
 */
export async function runStrfryPlugin(options: StrfryPluginOptions): Promise<void> {
  const guard = decisionGuard(options.timeoutMs ?? STRFRY_DEFAULT_TIMEOUT_MS);
  const lines = createInterface({ input: options.input, crlfDelay: Infinity });
  const write = (answer: StrfryAnswer) => options.output.write(`${JSON.stringify(answer)}\n`);
  for await (const line of lines) {
    if (line.trim() === '') continue;
    const request = requestOf(line);
    if ('problem' in request) {
      options.warn(`strfry plugin: skipped ${request.problem}`);
      continue;
    }
    if (request.type !== 'new') {
      write({ id: request.id, action: 'reject', msg: `error: unknown request type ${JSON.stringify(request.type)}` });
      continue;
    }
    const now = options.admission.admitNow(request.event);
    const decision = now instanceof Promise ? await guard.decide(now) : now;
    write({ id: request.id, action: decision.accept ? 'accept' : 'reject', msg: decision.message });
  }
  guard.stop();
}

/**
 * A pending decision, or `unavailable()` once `timeoutMs` pass first. strfry asks one decision at
 * a time, so one timer serves them all, re-armed per decision that waits on the database (a
 * cached decision is written at once and never comes here).
 */
function decisionGuard(timeoutMs: number) {
  let late: () => void = () => {};
  const timer = setTimeout(() => late(), timeoutMs);
  timer.unref();
  return {
    decide(work: Promise<AdmissionDecision>): Promise<AdmissionDecision> {
      return new Promise<AdmissionDecision>((resolve) => {
        late = () => resolve(unavailable());
        timer.refresh();
        work.then(resolve, () => resolve(unavailable()));
      });
    },
    stop: () => clearTimeout(timer),
  };
}
