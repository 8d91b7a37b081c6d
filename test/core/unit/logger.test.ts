import { expect } from 'chai';
import fc from 'fast-check';
import { createJsonLogger, createWalletBackend, type Logger } from '@wallet/backend-core';
import { logRequestLine, type RequestLine } from '../../../packages/core/src/logger/index.js';
import { WRITE_REQUEST_LINE } from '../../../packages/core/src/logger/request-line.js';
import { freePort, TEST_PUBLIC_API_URL, TEST_SECRETS } from '../../harness/index.js';

/** A logger whose lines land in an array, parsed. */
function capture(level: 'debug' | 'info' = 'info'): { logger: Logger; lines: string[]; parsed: () => Array<Record<string, unknown>> } {
  const lines: string[] = [];
  const logger = createJsonLogger({ level, write: (line) => lines.push(line) });
  return { logger, lines, parsed: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

describe('JSON logger', () => {
  it('writes a BigInt as its exact decimal string, at any depth', () => {
    const { logger, parsed } = capture();
    expect(() => logger.info('amounts', { atomic: 18_446_744_073_709_551_617n, nested: { list: [1n, -2n] } })).not.to.throw();
    const [line] = parsed();
    expect(line).to.include({ level: 'info', msg: 'amounts', atomic: '18446744073709551617' });
    expect(line!.nested).to.deep.equal({ list: ['1', '-2'] });
  });

  it('writes a circular value as "[Circular]" and a value repeated side by side in full', () => {
    const { logger, parsed } = capture();
    const loop: Record<string, unknown> = { name: 'loop' };
    loop.self = loop;
    loop.inner = { back: loop };
    const shared = { id: 7 };
    expect(() => logger.warn('cycle', { loop, pair: [shared, shared] })).not.to.throw();
    const [line] = parsed();
    expect(line!.loop).to.deep.equal({ name: 'loop', self: '[Circular]', inner: { back: '[Circular]' } });
    expect(line!.pair).to.deep.equal([{ id: 7 }, { id: 7 }]);
  });

  it('writes an Error field with name, message, code, stack and cause; a self-caused error ends', () => {
    const { logger, parsed } = capture();
    const cause = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const err = new Error('query failed', { cause });
    const selfish = new Error('me');
    (selfish as { cause?: unknown }).cause = selfish;
    logger.error('failed', { error: err, selfish });
    const [line] = parsed();
    const written = line!.error as Record<string, unknown>;
    expect(written).to.include({ name: 'Error', message: 'query failed' });
    expect(written.stack).to.be.a('string');
    expect(written.cause).to.include({ message: 'connect ECONNREFUSED', code: 'ECONNREFUSED' });
    expect((line!.selfish as Record<string, unknown>).cause).to.equal('[Circular]');
  });

  it('bounds deep nesting, and writes Maps and Sets by their entries', () => {
    const { logger, parsed } = capture();
    let deep: Record<string, unknown> = { leaf: true };
    for (let i = 0; i < 50; i += 1) deep = { down: deep };
    logger.info('shapes', { deep, map: new Map([['a', 1n]]), set: new Set(['x']) });
    const [line] = parsed();
    expect(JSON.stringify(line!.deep)).to.include('[Depth]');
    expect(line!.map).to.deep.equal({ a: '1' });
    expect(line!.set).to.deep.equal(['x']);
  });

  it('still writes the line when a field cannot be written at all (throwing getter or toJSON), saying why', () => {
    const { logger, parsed } = capture();
    const hostile = {
      get secret(): string {
        throw new Error('getter refused');
      },
    };
    const badJson = { toJSON: () => { throw new Error('toJSON refused'); } };
    expect(() => logger.info('getter', { hostile })).not.to.throw();
    expect(() => logger.info('tojson', { badJson })).not.to.throw();
    expect(() => logger.info('no prototype', { value: Object.create(null) as object })).not.to.throw();
    const lines = parsed();
    expect(lines[0]).to.include({ msg: 'getter' });
    expect(lines[0]!.log_error).to.include('getter refused');
    expect(lines[1]).to.include({ msg: 'tojson' });
    expect(lines[1]!.log_error).to.include('toJSON refused');
    expect(lines[2]).to.deep.include({ msg: 'no prototype', value: {} });
  });

  it('a child logger with BigInt or circular bindings never throws either', () => {
    const { logger, parsed } = capture();
    const loop: Record<string, unknown> = {};
    loop.loop = loop;
    const child = logger.child({ request_amount: 5n, loop });
    expect(() => child.info('child')).not.to.throw();
    expect(parsed()[0]).to.deep.include({ request_amount: '5', loop: { loop: '[Circular]' } });
  });

  it('writes fields as given, a later one over an earlier one of the same name, and a field named __proto__ as a field', () => {
    const { logger, parsed } = capture();
    const child = logger.child({ component: 'test', request_id: 'bound' });
    child.info('shapes', JSON.parse('{"__proto__":"kept","request_id":"given","status":200,"ok":true,"none":null,"gone":null}') as Record<string, unknown>);
    child.info('plain', { count: 3, ms: 0.5, skipped: undefined });
    const [shapes, plain] = parsed();
    expect(Object.keys(shapes!)).to.deep.equal(['level', 'time', 'msg', 'component', 'request_id', '__proto__', 'status', 'ok', 'none', 'gone']);
    expect(Object.getOwnPropertyDescriptor(shapes, '__proto__')?.value).to.equal('kept');
    expect(shapes).to.include({ component: 'test', request_id: 'given', status: 200, ok: true, none: null });
    expect(plain).to.deep.equal({ level: 'info', time: plain!.time, msg: 'plain', component: 'test', request_id: 'bound', count: 3, ms: 0.5 });
    expect(new Date(plain!.time as string).toISOString()).to.equal(plain!.time);
  });

  it("writes a request line with the same bytes as the generic line, whatever its text, numbers and the logger's bindings", () => {
    const text = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('', '/api/v1/health', 'a"b\\c', '\u2028', '\ud800', 'GET'));
    const line = fc.record({
      requestId: text,
      method: text,
      path: text,
      status: fc.oneof(fc.integer({ min: 100, max: 599 }), fc.double()),
      code: fc.option(text, { nil: undefined }),
      ms: fc.oneof(fc.double({ noNaN: true }), fc.double(), fc.constantFrom(0, -0, 0.1, 1e21, 12.3)),
    });
    const bindings = fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('0', '7', '4294967294', '4294967295', '01')), fc.oneof(fc.string({ unit: 'binary' }), fc.double(), fc.boolean(), fc.constant(null), fc.constant(undefined)), { maxKeys: 3 });
    const untimed = (written: string) => written.replace(/"time":"[^"]*"/, '"time":"T"');
    let direct = 0;
    fc.assert(
      fc.property(line, bindings, (request: RequestLine, bound) => {
        const { logger, lines } = capture();
        const child = logger.child(bound);
        // The same logger behind a plain object: logRequestLine can only call its info().
        const generic: Logger = { debug: child.debug, info: child.info, warn: child.warn, error: child.error, child: child.child };
        logRequestLine(child, request);
        logRequestLine(generic, request);
        expect(lines).to.have.length(2);
        expect(untimed(lines[0]!)).to.equal(untimed(lines[1]!));
        if (WRITE_REQUEST_LINE in child) direct++;
      }),
      { numRuns: 2_000 },
    );
    // Most runs took the direct writer (the rest: bindings it leaves to the generic line).
    expect(direct).to.be.greaterThan(800);
  });

  it("a wrapper around a logger gets every request line through its own info, and bindings changed later change no line", () => {
    const { logger, parsed } = capture();
    const seen: string[] = [];
    const wrapped: Logger = { ...logger, info: (message, fields) => (seen.push(message), logger.info(message, { ...fields, wrapped: true })) };
    const assigned = Object.assign({}, logger, { info: wrapped.info });
    for (const host of [wrapped, assigned]) logRequestLine(host, { requestId: 'r'.repeat(8), method: 'GET', path: '/p', status: 200, code: undefined, ms: 1 });
    expect(seen).to.deep.equal(['request', 'request']);
    expect(parsed().map((line) => line.wrapped)).to.deep.equal([true, true]);

    const bound: Record<string, unknown> = { component: 'before' };
    const lines: string[] = [];
    const child = createJsonLogger({ bindings: bound, write: (line) => lines.push(line) });
    bound.component = 'after';
    bound.extra = 1n;
    logRequestLine(child, { requestId: 'r'.repeat(8), method: 'GET', path: '/p', status: 200, code: undefined, ms: 1 });
    child.info('other');
    expect(lines.map((line) => JSON.parse(line) as Record<string, unknown>).map((line) => [line.component, line.extra])).to.deep.equal([
      ['before', undefined],
      ['before', undefined],
    ]);
  });

  it('writes no request line below info, and a bound name the line also writes is written once', () => {
    const lines: string[] = [];
    const quiet = createJsonLogger({ level: 'warn', write: (written) => lines.push(written) });
    logRequestLine(quiet, { requestId: 'r'.repeat(8), method: 'GET', path: '/p', status: 200, code: undefined, ms: 1 });
    expect(lines).to.deep.equal([]);
    const { logger, lines: bound } = capture();
    logRequestLine(logger.child({ status: 'bound', component: 'x' }), { requestId: 'r'.repeat(8), method: 'GET', path: '/p', status: 404, code: 'not_found', ms: 0.5 });
    expect(bound[0]!.match(/"status"/g)).to.have.length(1);
    expect(JSON.parse(bound[0]!)).to.include({ msg: 'request', component: 'x', status: 404, code: 'not_found', ms: 0.5 });
  });

  it('a log call never throws when the destination itself fails', () => {
    const logger = createJsonLogger({
      write: () => {
        throw new Error('EPIPE');
      },
    });
    expect(() => logger.error('into the void', { n: 1n })).not.to.throw();
  });

  it('keeps one line per call: stacks and newlines stay inside JSON strings', () => {
    const { logger, lines } = capture();
    logger.error('multi', { text: 'a\nb', err: new Error('x') });
    expect(lines).to.have.length(1);
    expect(lines[0]).not.to.include('\n');
  });
});

describe("knex's messages go through the backend's logger", () => {
  it('an unreachable Postgres: the connection error and its stack are JSON lines, never plain text on stdout; no password', async () => {
    const { logger, lines, parsed } = capture();
    const port = await freePort();
    const backend = await createWalletBackend({
      publicApiUrl: TEST_PUBLIC_API_URL,
      databaseUrl: `postgres://wallet:hunter2-not-logged@127.0.0.1:${port}/wallet`,
      ...TEST_SECRETS,
      logger,
      schedulerEnabled: false,
    });
    const stdout: string[] = [];
    const realWrite = process.stdout.write.bind(process.stdout);
    const realLog = console.log;
    process.stdout.write = ((chunk: string | Uint8Array) => {
      stdout.push(String(chunk));
      return true;
    }) as typeof process.stdout.write;
    console.log = (...args: unknown[]) => stdout.push(args.map(String).join(' '));
    let failure: unknown;
    try {
      await backend.migrate().catch((err: unknown) => (failure = err));
    } finally {
      process.stdout.write = realWrite;
      console.log = realLog;
      await backend.close();
    }
    expect((failure as Error | undefined)?.message).to.include('ECONNREFUSED');
    expect(stdout.join(''), 'nothing reaches stdout beside the logger').to.equal('');
    const driver = parsed().filter((line) => line.msg === 'database driver warning');
    expect(driver, lines.join('\n')).to.have.length.greaterThan(0);
    expect(driver[0]).to.include({ level: 'warn', component: 'database' });
    expect(driver[0]!.detail).to.match(/^Acquire connection error: .*ECONNREFUSED/);
    expect(driver[0]!.stack).to.be.a('string');
    expect(lines.join('\n')).not.to.include('hunter2');
  });
});
