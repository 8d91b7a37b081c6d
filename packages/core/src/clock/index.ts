/**
 * Every notion of "now" in the backend comes from a Clock, never from SQL `now()` or a bare
 * `Date.now()` in feature code, so tests move time instead of sleeping
 * (docs/architecture.md#time).
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = Object.freeze({ now: () => new Date() });

/** Milliseconds after `date`, as a new Date. */
export function addMs(date: Date, ms: number): Date {
  return new Date(date.getTime() + ms);
}
