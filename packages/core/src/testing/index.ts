/**
 * Test helpers for hosts and plugin authors: a controllable clock and a logger that keeps lines.
 * @module
 */
import type { Clock } from '../clock/index.js';
import { createJsonLogger, type Logger } from '../logger/index.js';

/** A clock that moves only when told to. */
export class ManualClock implements Clock {
  private current: number;

  constructor(start: Date | string = '2026-01-01T00:00:00.000Z') {
    this.current = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  advance(ms: number): void {
    this.current += ms;
  }

  set(date: Date | string): void {
    this.current = new Date(date).getTime();
  }
}

export interface CapturedLogger extends Logger {
  /** Every line written so far, parsed. */
  readonly lines: Array<Record<string, unknown>>;
  /** Every line as raw text (for "never logged" assertions). */
  text(): string;
}

/** A debug-level logger that keeps its lines in memory. */
export function captureLogger(): CapturedLogger {
  const lines: Array<Record<string, unknown>> = [];
  const raw: string[] = [];
  const logger = createJsonLogger({
    level: 'debug',
    write: (line) => {
      raw.push(line);
      lines.push(JSON.parse(line) as Record<string, unknown>);
    },
  });
  return Object.assign(logger, { lines, text: () => raw.join('\n') });
}
