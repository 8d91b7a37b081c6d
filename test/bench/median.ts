/** The middle value, the upper of the two middle ones for an even count (the benches' rounds and starts). */
export const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** The middle value, the mean of the two middle ones for an even count (where the upper one would lean high: the admission bench's even rounds). */
export function balancedMedian(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const half = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[half]! : (sorted[half - 1]! + sorted[half]!) / 2;
}
