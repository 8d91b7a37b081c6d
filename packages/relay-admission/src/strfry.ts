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

/** Lines held while a decision waits on the database before the input is paused (strfry sends one at a time). */
const HELD_LINES_HIGH_WATER = 1_024;

/**
 * strfry's write-policy plugin protocol (docs/plugins.md of strfry): one JSON request per line
 * on stdin (`{"type":"new","event":{…},"receivedAt","sourceType","sourceInfo","authed"?}`), one
 * minified JSON answer per line on stdout echoing the event id, written as soon as it is decided
 * and in request order. strfry has verified the event's id and signature before it asks. A line
 * that cannot be answered (not JSON, no event id) is reported and skipped, never fatal; a
 * request whose type is not `new` is rejected; a slow decision is rejected at `timeoutMs`.
 * Resolves when the input ends and every line read has its answer; rejects when the input fails
 * or an answer cannot be written (`output.write` throwing).
 *
 * Lines are answered from readline's `line` event, in the same turn of the event loop as they
 * arrive, not through its async iterator: strfry waits for each answer before it sends the next
 * line, so the iterator's promise and microtask hops per line were on every event's round trip.
 * A line that arrives while a decision waits on the database is held and answered after it.
 */
export function runStrfryPlugin(options: StrfryPluginOptions): Promise<void> {
  const guard = decisionGuard(options.timeoutMs ?? STRFRY_DEFAULT_TIMEOUT_MS);
  const lines = createInterface({ input: options.input, crlfDelay: Infinity });
  const output = options.output;
  const held: string[] = [];
  let waiting = false;
  let ended = false;

  /** Answers one line; a promise only when its decision waits on the database. */
  function answer(line: string): Promise<void> | undefined {
    if (line.trim() === '') return undefined;
    const request = requestOf(line);
    if ('problem' in request) {
      options.warn(`strfry plugin: skipped ${request.problem}`);
      return undefined;
    }
    if (request.type !== 'new') {
      output.write(answerLine(request.id, { accept: false, message: `error: unknown request type ${JSON.stringify(request.type)}` }));
      return undefined;
    }
    const now = options.admission.admitNow(request.event);
    if (!(now instanceof Promise)) {
      output.write(answerLine(request.id, now));
      return undefined;
    }
    return guard.decide(now).then((decision) => {
      output.write(answerLine(request.id, decision));
    });
  }

  return new Promise<void>((resolve, reject) => {
    let settled = false;
    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      guard.stop();
      lines.close();
      reject(err instanceof Error ? err : new Error(String(err)));
    };
    const finishIfDone = () => {
      // Held lines exist only while a decision waits, so `waiting` covers them.
      if (!ended || waiting || settled) return;
      settled = true;
      guard.stop();
      resolve();
    };
    /** Answers held lines in order until one waits on the database again. */
    const drain = () => {
      waiting = false;
      while (held.length > 0) {
        const pending = answer(held.shift()!);
        if (pending !== undefined) return wait(pending);
      }
      // A closed interface throws on resume: the input has ended, nothing is left to read.
      if (!ended) lines.resume();
      finishIfDone();
    };
    const wait = (pending: Promise<void>) => {
      waiting = true;
      pending.then(drain).catch(fail);
    };
    lines.on('line', (line) => {
      if (settled) return;
      if (waiting) {
        held.push(line);
        if (held.length === HELD_LINES_HIGH_WATER) lines.pause();
        return;
      }
      try {
        const pending = answer(line);
        if (pending !== undefined) wait(pending);
      } catch (err) {
        fail(err);
      }
    });
    // The input's own failure (readline passes it on): the loop ends with it, as the relay's pipe is gone.
    lines.on('error', fail);
    lines.on('close', () => {
      ended = true;
      finishIfDone();
    });
  });
}

/**
 * The answer line, the bytes `JSON.stringify` gives a `StrfryAnswer` ({id, action, msg} in that
 * order), written without building the object: it is on every event's round trip. The id is
 * serialised as strfry sent it; the message is a constant of the policy or a reason.
 */
function answerLine(id: string, decision: AdmissionDecision): string {
  return `{"id":${JSON.stringify(id)},"action":"${decision.accept ? 'accept' : 'reject'}","msg":${JSON.stringify(decision.message)}}\n`;
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
