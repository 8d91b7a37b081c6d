/**
 * Lets a bounded amount of scan work be read and scanned at once: at most `maxPages` pages and
 * at most `maxOutputs` outputs between them (a page weighs the outputs it asked for). The rest
 * wait their turn, in order, holding nothing. A page is about 1.6 KB of JSON per output, read
 * whole and parsed on the event loop: 64 wallets scanning 1,000-output pages at once held about
 * 100 MB, and scanned no faster than a few at a time (the workers were the bottleneck). Counting
 * outputs, not only pages, keeps large pages few and lets small ones (bound by round trips to
 * the node) run many at once.
 */
export class ScanGate {
  private pages = 0;
  private outputs = 0;
  private readonly waiting: Array<{ outputs: number; start: () => void }> = [];

  constructor(
    private readonly maxPages: number,
    private readonly maxOutputs: number,
  ) {
    for (const [name, value] of [['maxPages', maxPages], ['maxOutputs', maxOutputs]] as const) {
      if (!Number.isInteger(value) || value < 1) throw new Error(`ScanGate: ${name} must be a positive integer, not ${value}`);
    }
  }

  async run<T>(outputs: number, work: () => Promise<T>): Promise<T> {
    // Nobody overtakes: a page waits while anyone is waiting before it, even if it would fit.
    if (this.waiting.length > 0 || !this.fits(outputs)) await new Promise<void>((start) => this.waiting.push({ outputs, start }));
    else this.take(outputs);
    try {
      return await work();
    } finally {
      this.pages--;
      this.outputs -= outputs;
      this.admit();
    }
  }

  /** Pages being read or scanned now, their outputs, and pages waiting (for tests and metrics). */
  get load(): { running: number; outputs: number; waiting: number } {
    return { running: this.pages, outputs: this.outputs, waiting: this.waiting.length };
  }

  /** A page larger than the whole budget still runs, alone. */
  private fits(outputs: number): boolean {
    return this.pages === 0 || (this.pages < this.maxPages && this.outputs + outputs <= this.maxOutputs);
  }

  private take(outputs: number): void {
    this.pages++;
    this.outputs += outputs;
  }

  private admit(): void {
    while (this.waiting.length > 0 && this.fits(this.waiting[0]!.outputs)) {
      const next = this.waiting.shift()!;
      this.take(next.outputs);
      next.start();
    }
  }
}
