import { writeSync } from 'node:fs';
import { formatRequestLine, REQUEST_LINE_NAMES, WRITE_REQUEST_LINE, type RequestLine } from './request-line.js';

export type { RequestLine } from './request-line.js';

/**
 * A minimal structured logger. Callers pass fields, never interpolated secrets: tokens, view
 * keys and raw client IPs must not be given to it (spec, General rule 2).
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  child(bindings: LogFields): Logger;
}

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

/** Nesting below this depth is written as "[Depth]": a log line stays one bounded line. */
const MAX_DEPTH = 10;

export interface JsonLoggerOptions {
  level?: LogLevel;
  /** Where a finished line goes; stdout by default. */
  write?: (line: string) => void;
  bindings?: LogFields;
}

/**
 * A JSON.stringify replacer that never throws on what callers commonly hand a logger: a BigInt
 * becomes its decimal string (a JSON number would lose precision), an Error its name, message,
 * stack, code and cause (JSON.stringify alone writes `{}`), a reference back to an enclosing
 * object "[Circular]" (a value seen twice side by side is written twice), a Map or Set its
 * entries, and nesting deeper than MAX_DEPTH "[Depth]".
 */
function safeReplacer(): (this: unknown, key: string, value: unknown) => unknown {
  // The path from the root to the value being written: each object as given (to spot a cycle)
  // and as written (the holder its children are replaced under).
  const path: Array<{ given: object; written: unknown }> = [];
  return function replace(this: unknown, _key: string, value: unknown): unknown {
    if (typeof value === 'bigint') return value.toString();
    if (typeof value !== 'object' || value === null) return value;
    // `this` is the object holding `value`: unwind to it.
    while (path.length > 0 && path[path.length - 1]!.written !== this) path.pop();
    if (path.some((step) => step.given === value)) return '[Circular]';
    if (path.length > MAX_DEPTH) return '[Depth]';
    const written = rewrite(value);
    path.push({ given: value, written });
    return written;
  };
}

/** The JSON-friendly stand-in for objects JSON.stringify writes badly; others as they are. */
function rewrite(value: object): unknown {
  if (value instanceof Error) {
    const { code } = value as { code?: unknown };
    return {
      name: value.name,
      message: value.message,
      ...(code !== undefined ? { code } : {}),
      ...(value.stack !== undefined ? { stack: value.stack } : {}),
      ...(value.cause !== undefined ? { cause: value.cause } : {}),
    };
  }
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [String(k), v as unknown]));
  if (value instanceof Set) return [...value];
  return value;
}

/**
 * The line for one call. A value that still cannot be written (a getter or `toJSON` that throws)
 * costs its fields, not the line: the message is written with `log_error` saying why.
 * `plainBindings` says the bindings hold no value that needs the replacer (a logger knows it once).
 */
export function formatLogLine(level: Exclude<LogLevel, 'silent'>, message: unknown, bindings: LogFields, fields: LogFields, plainBindings: boolean): string {
  const time = isoNow();
  const msg = typeof message === 'string' ? message : safeString(message);
  try {
    // Spread, not Object.assign: a field named `__proto__` stays a field, and a literal is cheaper to make.
    const line: LogFields = { level, time, msg, ...bindings, ...fields };
    // Most lines (every request line) hold strings and numbers only: the replacer, which exists
    // for BigInts, Errors and cycles, would cost more than the rest of the line.
    return JSON.stringify(line, plainBindings && onlyPrimitives(fields) ? undefined : safeReplacer());
  } catch (err) {
    return JSON.stringify({ level, time, msg, log_error: `the fields of this line could not be written: ${err instanceof Error ? safeString(err.message) : safeString(err)}` });
  }
}

/**
 * Not enumerable: a host that wraps this logger with `{ ...logger, info }` or `Object.assign`
 * does not copy it, so its own `info` still gets every request line.
 */
function attachRequestLineWriter(logger: Logger, writer: (line: RequestLine) => void): void {
  Object.defineProperty(logger, WRITE_REQUEST_LINE, { value: writer });
}

/**
 * The bindings as they are now: the request-line writer serialises them once, so a host that
 * changes its object later must not make the two kinds of line disagree. Null when reading one
 * throws (a getter), which is then left to the replacer to report line by line.
 */
function copied(bindings: LogFields): LogFields | null {
  try {
    return { ...bindings };
  } catch {
    return null;
  }
}

/** A name JSON.stringify writes before every other key of an object (an array index), wherever it was set. */
function isArrayIndex(name: string): boolean {
  return /^(?:0|[1-9]\d{0,9})$/.test(name) && Number(name) < 2 ** 32 - 1;
}

/** Whether every value is one JSON writes the same with or without the replacer (no object, no BigInt). */
function onlyPrimitives(fields: LogFields): boolean {
  for (const key in fields) {
    const value = fields[key];
    if (typeof value === 'bigint' || (typeof value === 'object' && value !== null)) return false;
  }
  return true;
}

let lastMs = NaN;
let lastIso = '';

/** The current time in ISO 8601, formatted once per millisecond (a busy server logs many lines in one). */
function isoNow(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

/** String(value), or a placeholder when even that throws (an object without a prototype, a throwing toString). */
function safeString(value: unknown): string {
  try {
    return String(value);
  } catch {
    return '[unprintable]';
  }
}

/** Lines not written yet, as one string: appending builds a rope that the write flattens once (an array joined per batch cost twice as much). */
let pending = '';
let flushTimer: NodeJS.Timeout | undefined;
let exitHooked = false;
/** Pending lines are written once they reach this size… */
const FLUSH_BYTES = 16 * 1024;
/** …or this long after the first of them, whichever comes first. */
const STDOUT_FLUSH_DELAY_MS = 100;

function flushStdout(): void {
  if (flushTimer !== undefined) {
    clearTimeout(flushTimer);
    flushTimer = undefined;
  }
  if (pending === '') return;
  const chunk = pending;
  pending = '';
  try {
    process.stdout.write(chunk);
  } catch {
    // Nowhere left to report it.
  }
}

/**
 * The default destination: stdout, written in batches of up to 16 KB or 100 ms (a write
 * system call per line, or even per event-loop turn, cost a busy server more than the rest of
 * its request line: about 12 µs of a 60 µs `/health`). What is still pending when the process
 * exits (process.exit, an uncaught error, a signal handled by exiting) is written synchronously
 * then; only a process killed outright (SIGKILL) loses its last 100 ms of lines.
 */
export function writeStdoutLine(line: string): void {
  pending += `${line}\n`;
  if (!exitHooked) {
    exitHooked = true;
    process.once('exit', () => {
      if (pending === '') return;
      try {
        writeSync(1, pending);
      } catch {
        // Nowhere left to report it.
      }
      pending = '';
    });
  }
  if (pending.length >= FLUSH_BYTES) flushStdout();
  else if (flushTimer === undefined) {
    flushTimer = setTimeout(flushStdout, STDOUT_FLUSH_DELAY_MS);
    // Pending lines never keep a process alive: its exit writes them.
    flushTimer.unref();
  }
}

/**
 * One JSON object per line: `{"level","time","msg",...fields}`. A call never throws: not on a
 * BigInt, a circular value or a throwing getter in its fields, and not when `write` itself fails
 * (a closed stdout must not turn a log line into a crash).
 */
export function createJsonLogger(options: JsonLoggerOptions = {}): Logger {
  const threshold = RANK[options.level ?? 'info'];
  const write = options.write ?? writeStdoutLine;
  const given = options.bindings ?? {};
  const copy = copied(given);
  const bindings = copy ?? given;
  const plainBindings = copy !== null && onlyPrimitives(copy);
  const emit = (level: Exclude<LogLevel, 'silent'>) => (message: string, fields: LogFields = {}) => {
    if (RANK[level] < threshold) return;
    try {
      write(formatLogLine(level, message, bindings, fields, plainBindings));
    } catch {
      // Nowhere left to report it: the log destination itself failed.
    }
  };
  const logger: Logger = {
    debug: emit('debug'),
    info: emit('info'),
    warn: emit('warn'),
    error: emit('error'),
    child: (more) => createJsonLogger({ ...options, bindings: { ...bindings, ...more } }),
  };
  // Request lines written straight from their values (logRequestLine), where that gives the generic line's bytes.
  if (RANK.info < threshold) attachRequestLineWriter(logger, () => undefined);
  else if (plainBindings && Object.keys(bindings).every((name) => !REQUEST_LINE_NAMES.includes(name) && !isArrayIndex(name))) {
    const members = JSON.stringify(bindings).slice(1, -1);
    const boundJson = members === '' ? '' : `,${members}`;
    attachRequestLineWriter(logger, (line) => {
      try {
        write(formatRequestLine(isoNow(), boundJson, line));
      } catch {
        // Nowhere left to report it: the log destination itself failed.
      }
    });
  }
  return logger;
}

/**
 * Logs a request's line. A logger made by createJsonLogger writes it straight from these values,
 * the same bytes as `info('request', fields)` gives (tested): every request pays for its line,
 * and building the fields as an object for JSON.stringify was the largest single share of the
 * kit's own cost in a `/health` profile (measured alone, with the batched write to a pipe: about
 * 1.1 µs a line against 1.9). Any other logger (a host's, a wrapper) gets the generic call.
 */
export function logRequestLine(logger: Logger, line: RequestLine): void {
  const write = (logger as Logger & { [WRITE_REQUEST_LINE]?: (line: RequestLine) => void })[WRITE_REQUEST_LINE];
  if (write !== undefined) return write(line);
  const { requestId, method, path, status, code, ms } = line;
  logger.info('request', { request_id: requestId, method, path, status, ...(code ? { code } : {}), ms });
}

export const silentLogger: Logger = createJsonLogger({ level: 'silent' });

/** An error's message and name for a log line, without stack frames that could echo inputs. */
export function describeError(err: unknown): LogFields {
  if (err instanceof Error) return { err: err.message, err_name: err.name, stack: err.stack };
  return { err: safeString(err) };
}
