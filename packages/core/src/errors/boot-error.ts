/** Refusal to boot: every problem found, listed at once. */
export class BootError extends Error {
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(`wallet backend refused to start (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n  - ${problems.join('\n  - ')}`);
    this.name = 'BootError';
    this.problems = problems;
  }
}
