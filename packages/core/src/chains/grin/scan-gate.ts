/**
 * Lets at most `limit` scan pages be read and scanned at once; the rest wait their turn, in
 * order, holding nothing. A page is about 1.6 KB of JSON per output, read whole and parsed on
 * the event loop, so 64 wallets scanning 1,000-output pages at once held about 100 MB, and
 * scanned no faster than a few at a time: the workers were the bottleneck.
 */
export class ScanGate {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`ScanGate: limit must be a positive integer, not ${limit}`);
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await work();
    } finally {
      // The slot passes straight to the next in line (running stays the same), or is freed.
      const next = this.waiting.shift();
      if (next !== undefined) next();
      else this.running--;
    }
  }

  /** Pages being read or scanned now, and pages waiting (for tests and metrics). */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }
}
