import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/*
 * The reader thread's whole program, plain CommonJS run with `eval`: no file of its own to find,
 * so the same text works from the sources, from dist and inside the one-file bundle. It opens
 * the database file with better-sqlite3 (never creating it) and answers one statement at a time.
 */
const READER_PROGRAM = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
let db = null;
const statements = new Map();
parentPort.on('message', ({ id, sql, bindings }) => {
  try {
    if (db === null) db = new Database(workerData.file, { fileMustExist: true, timeout: workerData.busyTimeoutMs });
    let statement = statements.get(sql);
    if (statement === undefined) {
      statement = db.prepare(sql);
      if (statements.size < 64) statements.set(sql, statement);
    }
    parentPort.postMessage({ id, rows: statement.all(...bindings) });
  } catch (err) {
    parentPort.postMessage({ id, error: { message: String(err && err.message), code: err && err.code } });
  }
});
`;

interface Pending {
  resolve: (rows: unknown[]) => void;
  reject: (err: Error) => void;
}

/**
 * Reads a SQLite database on a thread of its own. better-sqlite3 answers in the calling thread,
 * so a read stuck on the file (WAL read marks held by another process, storage that hangs)
 * would stop the whole plugin, timers included; on this thread it stops only the reader, and
 * the admission's timeout and stall watch keep answering the relay.
 */
export class ThreadReader {
  private worker: Worker | null = null;
  private closed = false;
  private nextId = 0;
  private readonly pending = new Map<number, Pending>();
  private readonly driver = createRequire(import.meta.url).resolve('better-sqlite3');

  constructor(
    private readonly file: string,
    private readonly busyTimeoutMs: number,
  ) {}

  /** The rows `sql` selects with these bindings (`?` placeholders). */
  all(sql: string, bindings: readonly unknown[]): Promise<unknown[]> {
    if (this.closed) return Promise.reject(new Error('the reader thread was closed'));
    return new Promise<unknown[]>((resolve, reject) => {
      const id = this.nextId++;
      this.pending.set(id, { resolve, reject });
      this.thread().postMessage({ id, sql, bindings });
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.worker = null;
    this.failAll(new Error('the reader thread was closed'));
    await worker?.terminate();
  }

  /** The reader thread, started on first use and again after one that died. */
  private thread(): Worker {
    if (this.worker !== null) return this.worker;
    const worker = new Worker(READER_PROGRAM, { eval: true, workerData: { file: this.file, driver: this.driver, busyTimeoutMs: this.busyTimeoutMs } });
    // It never keeps the process alive: the plugin ends when its input does.
    worker.unref();
    worker.on('message', (message: { id: number; rows?: unknown[]; error?: { message: string; code?: string } }) => {
      const waiting = this.pending.get(message.id);
      if (waiting === undefined) return;
      this.pending.delete(message.id);
      if (message.error !== undefined) waiting.reject(Object.assign(new Error(message.error.message), { code: message.error.code }));
      else waiting.resolve(message.rows ?? []);
    });
    const died = (err: Error) => {
      if (this.worker === worker) this.worker = null;
      this.failAll(err);
    };
    worker.on('error', died);
    worker.on('exit', (code) => died(new Error(`the reader thread exited (${code})`)));
    this.worker = worker;
    return worker;
  }

  private failAll(err: Error): void {
    for (const waiting of this.pending.values()) waiting.reject(err);
    this.pending.clear();
  }
}
