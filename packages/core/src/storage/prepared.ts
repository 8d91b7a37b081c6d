import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import type { Knex } from 'knex';
import { dialectOf } from './dialect.js';
import type { Executor } from './single-row.js';

/** What a parameter stands in for while knex builds the SQL once: a value no caller sends. */
const MARK = '\u0000wallet-param:';

/** Where each bound value of the built SQL comes from: a named parameter, or a constant knex put there (a LIMIT, say). */
type Slot = { param: string } | { value: unknown };

interface Compiled {
  /** The dialect's own placeholders (`$1` on Postgres, `?` on SQLite), for the driver. */
  native: string;
  /**
   * The Postgres statement's name: the statement's, with a digest of its SQL, so two statements
   * given one name by mistake (or one built against two schemas) never collide on a connection.
   */
  serverName: string;
  slots: Slot[];
}

/** The knex client parts a direct run uses: its pool and its `query` event. */
interface PoolClient {
  acquireConnection(): Promise<unknown>;
  releaseConnection(connection: unknown): Promise<unknown>;
  emit(event: 'query' | 'query-response' | 'query-error', ...args: unknown[]): boolean;
}

/**
 * A hot statement whose SQL knex builds once per database, then runs with new values straight on
 * a pooled connection: no query builder, compiler or runner per call (about a third of a simple
 * indexed read's CPU in the server), and on Postgres a named prepared statement, so the server
 * plans it once per connection too. The `query` event still fires, as knex's would.
 *
 * `build` gets `param(name)` for each value that changes per call and must use each where a
 * plain value goes (a `where` value, an inserted value); constants knex adds stay as built. Pass
 * values as the dialect stores them (`dialect.time`, `dialect.bool`). Given a transaction, it runs
 * on the transaction's connection.
 *
 * Use it for the few statements every request runs (the session check, the user read); anything
 * else reads better as a knex query where it is used.
 */
export class PreparedStatement<P extends Record<string, unknown>> {
  private readonly compiled = new WeakMap<object, Compiled>();

  constructor(
    /** Says which statement it is (Postgres names the prepared statement after it and its SQL's digest). */
    readonly name: string,
    private readonly build: (knex: Knex, param: (name: keyof P & string) => string) => Knex.QueryBuilder | Knex.Raw,
  ) {}

  /** The rows the statement returns (a SELECT, or a write with RETURNING). */
  async rows<T>(executor: Executor, params: P): Promise<T[]> {
    const compiled = this.compile(executor);
    const values = compiled.slots.map((slot) => {
      if (!('param' in slot)) return slot.value;
      const value = params[slot.param];
      // knex refuses an undefined binding; pg would send NULL and better-sqlite3 throw.
      if (value === undefined) throw new Error(`prepared statement ${this.name}: no value for ${slot.param}`);
      return value;
    });
    // A transaction's client hands out the transaction's own connection; knex refuses a query on
    // a transaction that has ended, and so does this.
    if ((executor as Knex.Transaction).isTransaction && (executor as Knex.Transaction).isCompleted()) throw new Error(`Transaction query already complete, run with DEBUG=knex:tx for more info (${this.name})`);
    return this.runDirect<T>(executor, compiled, values);
  }

  /** The first row, or undefined. */
  async first<T>(executor: Executor, params: P): Promise<T | undefined> {
    return (await this.rows<T>(executor, params))[0];
  }

  private compile(executor: Executor): Compiled {
    // A transaction's client shares its root's config: the SQL is the same, so is the cache entry.
    const key = (executor.client as { config: object }).config;
    let compiled = this.compiled.get(key);
    if (compiled === undefined) {
      const asked = new Set<string>();
      const built = this.build(executor as Knex, (name) => {
        asked.add(name);
        return `${MARK}${name}`;
      });
      const portable = built.toSQL();
      const native = portable.toNative();
      const slots = portable.bindings.map((value): Slot => (typeof value === 'string' && value.startsWith(MARK) ? { param: value.slice(MARK.length) } : { value }));
      // A parameter knex did not bind as given (quoted into the text, transformed) would run as a
      // constant: refuse to prepare such a statement rather than run it wrong.
      for (const name of asked) {
        if (!slots.some((slot) => 'param' in slot && slot.param === name)) throw new Error(`prepared statement ${this.name}: parameter ${name} is not bound as a value`);
      }
      if (native.sql.includes(MARK)) throw new Error(`prepared statement ${this.name}: a parameter was written into the SQL text`);
      compiled = { native: native.sql, serverName: `wallet:${this.name}:${bytesToHex(sha256(utf8ToBytes(native.sql))).slice(0, 12)}`, slots };
      this.compiled.set(key, compiled);
    }
    return compiled;
  }

  private async runDirect<T>(executor: Executor, compiled: Compiled, values: unknown[]): Promise<T[]> {
    const client = executor.client as unknown as PoolClient;
    const connection = (await client.acquireConnection()) as { __knexUid?: string; __knexTxId?: string };
    // As knex describes a query to its listeners (tests tell transactions apart by __knexTxId).
    const query = { sql: compiled.native, bindings: values, method: 'raw', __knexUid: connection.__knexUid, __knexTxId: connection.__knexTxId };
    try {
      client.emit('query', query);
      const rows = (await dialectOf(executor).runPrepared(connection, { name: compiled.serverName, sql: compiled.native, values })) as T[];
      client.emit('query-response', rows, query);
      return rows;
    } catch (err) {
      client.emit('query-error', err, query);
      throw err;
    } finally {
      await client.releaseConnection(connection);
    }
  }
}

/** Where a prepared statement's builder gets a parameter: its marker while built once, its value when built per call. */
type Param<P> = (name: keyof P & string) => Knex.Value;

/**
 * `transitionOneAndInsert` as a prepared statement where the dialect does it in one statement
 * (Postgres: built once, then run as a named prepared statement); elsewhere (SQLite, two
 * statements in a transaction) it builds the query per call with the values, as before. The
 * same guarantee either way; the builders take `param(name)` for each value that changes, and
 * the answer holds the `returning` columns of the transitioned row on both.
 */
export class PreparedTransitionThenInsert<P extends Record<string, unknown>> {
  private readonly statement: PreparedStatement<P>;

  constructor(
    name: string,
    private readonly table: string,
    private readonly where: (qb: Knex.QueryBuilder, param: Param<P>) => void,
    private readonly set: (param: Param<P>) => Record<string, unknown>,
    private readonly row: (param: Param<P>) => Record<string, unknown>,
    /** The transitioned row's columns to return. Named, never `*`: a column a later migration adds must not change a prepared statement's result. */
    private readonly returning: string[],
  ) {
    this.statement = new PreparedStatement<P>(name, (knex, param) => dialectOf(knex).transitionThenInsertStatement!(knex, table, (qb) => where(qb, param), set(param), row(param), returning));
  }

  /** The transitioned row, or null when the guard matched nothing (and nothing was inserted). */
  async run<T>(executor: Executor, params: P): Promise<T | null> {
    const dialect = dialectOf(executor);
    if (dialect.transitionThenInsertStatement === undefined) {
      const value: Param<P> = (name) => params[name] as Knex.Value;
      const [transitioned] = await dialect.transitionThenInsert(executor, this.table, (qb) => this.where(qb, value), this.set(value), this.row(value));
      if (transitioned === undefined) return null;
      return Object.fromEntries(this.returning.map((column) => [column, (transitioned as Record<string, unknown>)[column]])) as T;
    }
    return (await this.statement.first<T>(executor, params)) ?? null;
  }
}
