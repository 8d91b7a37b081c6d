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

export interface JsonLoggerOptions {
  level?: LogLevel;
  /** Where a finished line goes; stdout by default. */
  write?: (line: string) => void;
  bindings?: LogFields;
}

/** One JSON object per line: `{"level","time","msg",...fields}`. */
export function createJsonLogger(options: JsonLoggerOptions = {}): Logger {
  const threshold = RANK[options.level ?? 'info'];
  const write = options.write ?? ((line: string) => process.stdout.write(line + '\n'));
  const bindings = options.bindings ?? {};
  const emit = (level: Exclude<LogLevel, 'silent'>) => (message: string, fields: LogFields = {}) => {
    if (RANK[level] < threshold) return;
    write(JSON.stringify({ level, time: new Date().toISOString(), msg: message, ...bindings, ...fields }));
  };
  return {
    debug: emit('debug'),
    info: emit('info'),
    warn: emit('warn'),
    error: emit('error'),
    child: (more) => createJsonLogger({ ...options, bindings: { ...bindings, ...more } }),
  };
}

export const silentLogger: Logger = createJsonLogger({ level: 'silent' });

/** An error's message and name for a log line, without stack frames that could echo inputs. */
export function describeError(err: unknown): LogFields {
  if (err instanceof Error) return { err: err.message, err_name: err.name, stack: err.stack };
  return { err: String(err) };
}
