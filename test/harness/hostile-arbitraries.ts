import { createHash } from 'node:crypto';
import fc from 'fast-check';
import type { WalletBackend } from '@wallet/backend-core';

/**
 * fast-check generators for the property-based hostile-input test: hostile JSON values (as JSON
 * text, so depth, duplicate and prototype keys survive), query strings, path parameters,
 * Authorization and Content-Type headers, and valid-shaped request bodies with one real field
 * mutated, all derived from an operation of the generated OpenAPI document.
 */

type Json = Record<string, any>;

/** One documented (or admin) operation as the generators see it. */
export interface FuzzOperation {
  method: string;
  /** The OpenAPI path template, e.g. `/api/v1/users/{user_id}/keys`. */
  path: string;
  auth: 'none' | 'bearer' | 'admin';
  pathParams: Array<{ name: string; schema: Json }>;
  queryParams: Array<{ name: string; schema: Json }>;
  /** The requestBody's JSON schema, when the operation takes one. */
  body?: Json;
}

/** One concrete request; `<user-token>` / `<admin-token>` in headers are filled in when sent. */
export interface HostileRequest {
  kind: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

export const USER_TOKEN = '<user-token>';
export const ADMIN_TOKEN = '<admin-token>';

/** Values a test fills into baseline (valid-shaped) requests. */
export interface FuzzContext {
  userId: string;
  bodyLimitBytes: number;
  /** Baseline values for parameters or fields whose schema does not say what is valid (e.g. `section: 'landing'`). */
  hints?: Record<string, string>;
}

/** `schema` with every `#/components/schemas/…` reference replaced by its target (named schemas are $ref'd). */
function inlineRefs(document: Json, schema: unknown): any {
  if (Array.isArray(schema)) return schema.map((item) => inlineRefs(document, item));
  if (schema === null || typeof schema !== 'object') return schema;
  const ref = (schema as Json).$ref;
  if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) {
    return inlineRefs(document, document.components.schemas[ref.slice('#/components/schemas/'.length)]);
  }
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, inlineRefs(document, value)]));
}

/** Every operation of an OpenAPI document, with `auth` from its security (or `admin` for admin paths). */
export function operationsOf(document: Json, options: { admin?: boolean } = {}): FuzzOperation[] {
  const operations: FuzzOperation[] = [];
  for (const [path, item] of Object.entries<Json>(document.paths ?? {})) {
    for (const [method, operation] of Object.entries<Json>(item)) {
      const parameters = (operation.parameters ?? []) as Json[];
      const bearer = ((operation.security ?? []) as unknown[]).length > 0;
      const publicAdmin = /\/admin\/login(-challenge)?$/.test(path);
      operations.push({
        method: method.toUpperCase(),
        path,
        auth: options.admin && !publicAdmin ? 'admin' : bearer ? 'bearer' : 'none',
        pathParams: parameters.filter((p) => p.in === 'path').map((p) => ({ name: p.name, schema: p.schema ?? {} })),
        queryParams: parameters.filter((p) => p.in === 'query').map((p) => ({ name: p.name, schema: p.schema ?? {} })),
        ...(operation.requestBody ? { body: inlineRefs(document, operation.requestBody.content?.['application/json']?.schema ?? {}) } : {}),
      });
    }
  }
  return operations;
}

// ---------------------------------------------------------------------------------------------
// Hostile values

const CONTROL = fc.oneof(
  fc.integer({ min: 0, max: 0x1f }).map((c) => String.fromCharCode(c)),
  fc.constantFrom('\u0000', '\u007f', '\u0085', '\u2028', '\u2029', '\ufeff', '\ufffe', '\uffff', '\u200b'),
);
const LONE_SURROGATE = fc.constantFrom('\ud800', '\udbff', '\udc00', '\udfff', '\ud83d');
const NASTY_LITERALS = [
  '',
  ' ',
  'null',
  'undefined',
  '0',
  '-1',
  '99999999999999999999',
  '-99999999999999999999',
  '1e309',
  'NaN',
  '0x10',
  '%00',
  '../../etc/passwd',
  "' OR 1=1 --",
  '"; DROP TABLE users; --',
  '<script>alert(1)</script>',
  '__proto__',
  'constructor',
  'npub1',
  'Ω≈ç√∫˜µ≤≥÷',
  '𝕏🔥👩‍👩‍👧',
  'ＡＢＣ',
];

/** A string with NUL and control characters, lone surrogates and odd Unicode mixed in. */
export const nastyString: fc.Arbitrary<string> = fc
  .array(fc.oneof(fc.string({ maxLength: 8 }), CONTROL, LONE_SURROGATE, fc.constantFrom(...NASTY_LITERALS)), { minLength: 1, maxLength: 10 })
  .map((parts) => parts.join(''));

/** A long string, within the body limit when JSON-encoded. */
export function hugeString(maxBytes: number): fc.Arbitrary<string> {
  return fc
    .tuple(fc.integer({ min: 1_000, max: Math.max(1_001, Math.floor(maxBytes * 0.9)) }), fc.constantFrom('x', 'A1', '0', '\u00e9', '\u0000'))
    .map(([length, unit]) => unit.repeat(Math.ceil(length / (unit === '\u0000' ? 6 : unit.length))));
}

export function hostileString(maxBytes: number): fc.Arbitrary<string> {
  return fc.oneof({ arbitrary: nastyString, weight: 5 }, { arbitrary: hugeString(maxBytes), weight: 1 }, { arbitrary: fc.constantFrom(...NASTY_LITERALS), weight: 2 });
}

const NUMBER_TEXTS = ['0', '-0', '-1', '1.5', '-1.5', '1e308', '1e309', '-1e309', '1e-400', '99999999999999999999', '-99999999999999999999', '9007199254740993', '4294967296', '2147483648', '0.1e1'];

/** Deeply nested arrays or objects as JSON text, at most about `maxBytes` long. */
export function deepNesting(maxBytes: number): fc.Arbitrary<string> {
  return fc.tuple(fc.integer({ min: 16, max: Math.max(17, Math.floor(maxBytes / 8)) }), fc.boolean()).map(([depth, arrays]) =>
    arrays ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth),
  );
}

const PROTOTYPE_OBJECTS = [
  '{"__proto__":{"admin":true,"isAdmin":true}}',
  '{"constructor":{"prototype":{"admin":true}}}',
  '{"__proto__":null}',
  '{"__proto__":[]}',
  '{"toString":1,"valueOf":"x","hasOwnProperty":null}',
];

/** Any hostile JSON value, as JSON text. */
export function hostileJson(maxBytes: number): fc.Arbitrary<string> {
  const scalar = fc.oneof(
    hostileString(maxBytes).map((s) => JSON.stringify(s)),
    fc.constantFrom('null', 'true', 'false', '[]', '{}', '""', ...NUMBER_TEXTS),
    fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
    fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String),
  );
  return fc.oneof(
    { arbitrary: scalar, weight: 6 },
    { arbitrary: deepNesting(maxBytes), weight: 1 },
    { arbitrary: fc.constantFrom(...PROTOTYPE_OBJECTS), weight: 1 },
    { arbitrary: fc.array(scalar, { maxLength: 4 }).map((items) => `[${items.join(',')}]`), weight: 1 },
    { arbitrary: fc.json({ maxDepth: 3 }), weight: 1 },
  );
}

/** Malformed JSON and byte sequences that are not UTF-8. */
export const brokenBody: fc.Arbitrary<string | Uint8Array> = fc.oneof(
  fc.constantFrom('', ' ', '{', '{"a":1,}', "{'a':1}", 'NaN', 'undefined', '\ufeff{}', '{"a":1}{"b":2}', '{"a":"\\x00"}', '{"a":"\\ud800"}', '\u0000', '{"a":1,"a":2}', '[', '"', '{"a":01}'),
  fc.uint8Array({ minLength: 1, maxLength: 64 }).map((bytes) => Buffer.concat([Buffer.from('{"a":"'), Buffer.from(bytes), Buffer.from('"}')])),
  fc.constantFrom(Uint8Array.of(0xff, 0xfe, 0x7b, 0x00, 0x7d), Uint8Array.of(0xc3, 0x28), Uint8Array.of(0xed, 0xa0, 0x80), Uint8Array.of(0xf8, 0x88, 0x80, 0x80, 0x80)),
);

// ---------------------------------------------------------------------------------------------
// Baseline (valid-shaped) values from JSON schemas

function firstOf(schema: Json): Json {
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) if (Array.isArray(schema[key]) && schema[key].length > 0) return firstOf(schema[key][0] as Json);
  return schema;
}

/** A plausible value for `schema` (enum, const, format, type); not necessarily valid. */
export function baselineValue(schema: Json, name: string, context: FuzzContext): unknown {
  if (context.hints?.[name] !== undefined) return context.hints[name];
  const s = firstOf(schema);
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  if (Array.isArray(s.examples) && s.examples.length > 0) return s.examples[0];
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case 'integer':
    case 'number':
      return typeof s.minimum === 'number' ? s.minimum : 1;
    case 'boolean':
      return true;
    case 'array':
      return [];
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [key, property] of Object.entries<Json>(s.properties ?? {})) out[key] = baselineValue(property, key, context);
      return out;
    }
    default:
      if (s.format === 'uuid' || /(^|_)id$/.test(name)) return name.includes('user') ? context.userId : '00000000-0000-4000-8000-000000000000';
      if (s.pattern && /\[0-9a-f\]\{64\}/i.test(String(s.pattern))) return 'ab'.repeat(32);
      if (typeof s.pattern === 'string' && /^\^?\\d/.test(s.pattern)) return '1';
      return 'a';
  }
}

/** The top-level field names of a body schema, over every variant. */
export function fieldNames(schema: Json): string[] {
  const names = new Set<string>(Object.keys(schema.properties ?? {}));
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) for (const variant of (schema[key] ?? []) as Json[]) for (const name of fieldNames(variant)) names.add(name);
  return [...names];
}

/** Every variant of a body schema, as baseline objects. */
function baselineBodies(schema: Json, context: FuzzContext): Array<Record<string, unknown>> {
  const variants = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  const list = variants && variants.length > 0 ? variants : [schema];
  return list.map((variant) => {
    const value = baselineValue({ ...variant, type: 'object' }, '', context);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  });
}

// ---------------------------------------------------------------------------------------------
// Requests

const USER_AUTH = `Bearer ${USER_TOKEN}`;
const ADMIN_AUTH = `Bearer ${ADMIN_TOKEN}`;

function baseHeaders(op: FuzzOperation): Record<string, string> {
  if (op.auth === 'bearer') return { authorization: USER_AUTH };
  if (op.auth === 'admin') return { authorization: ADMIN_AUTH };
  return {};
}

function takesBody(method: string): boolean {
  return method !== 'GET' && method !== 'HEAD';
}

/** Junk that a fetch header value can carry: printable ASCII and Latin-1 (never NUL, CR or LF). */
const headerJunk: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: fc.integer({ min: 0x20, max: 0xff }).filter((c) => c !== 0x7f).map((c) => String.fromCharCode(c)), maxLength: 64 }),
  fc.integer({ min: 1_000, max: 8_000 }).map((n) => 'A'.repeat(n)),
  fc.constantFrom('', ' ', 'null', 'undefined', 'e30', 'eyJhbGciOiJub25lIn0.e30.', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.AAAA', 'a.b.c', '....', '\t'),
);

const NOSTR_EVENTS = [
  '{}',
  'null',
  '[]',
  '{"kind":27235}',
  '{"kind":"27235","tags":"x","created_at":"now","pubkey":1,"sig":null,"id":[]}',
  '{"kind":27235,"tags":[["u"],["method"]],"created_at":99999999999999999999,"pubkey":"00","content":"","sig":"00","id":"00"}',
  '{"kind":27235,"tags":[[null,null]],"created_at":-1,"pubkey":"' + 'f'.repeat(64) + '","content":"\\u0000","sig":"' + '0'.repeat(128) + '","id":"' + '0'.repeat(64) + '"}',
  '{"__proto__":{"kind":27235}}',
];

export const authorizationHeader: fc.Arbitrary<string | null> = fc.oneof(
  fc.constant(null),
  headerJunk.map((junk) => `Bearer ${junk}`),
  headerJunk.map((junk) => `Nostr ${junk}`),
  fc.constantFrom(...NOSTR_EVENTS).map((event) => `Nostr ${Buffer.from(event).toString('base64')}`),
  headerJunk.map((junk) => `Nostr ${Buffer.from(junk, 'latin1').toString('base64')}`),
  headerJunk,
  fc.constantFrom('Bearer', 'Bearer ', 'bearer x', 'BEARER x', 'Basic dXNlcjpwYXNz', 'Nostr', 'Bearer  a  b', `${USER_AUTH}x`, `${USER_AUTH} ${USER_TOKEN}`, ADMIN_AUTH, USER_AUTH),
);

export const contentType: fc.Arbitrary<Record<string, string>> = fc.oneof(
  fc
    .constantFrom(
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/json; charset=utf-16',
      'application/json; charset=latin1',
      'application/json; charset=bogus',
      'application/jsonx',
      'application/vnd.api+json',
      'application/json, text/plain',
      'application/JSON',
      ';;;',
      '',
      'application/\u00e9',
    )
    .map((value) => ({ 'content-type': value })),
  fc.constantFrom('gzip', 'deflate', 'br', 'x-junk', 'gzip, gzip').map((value) => ({ 'content-type': 'application/json', 'content-encoding': value })),
);

const PATH_JUNK = ['%00', 'a%00b', '%2F', 'a%2Fb', '..', '%2e%2e', '%', '%zz', '%E0%A4%A', '%FF', '%C0%AF', '%20', '%0A', '.', 'null', '-1', '99999999999999999999', 'NaN', '00000000-0000-0000-0000-000000000000', 'ZZZZZZZZ-ZZZZ-ZZZZ-ZZZZ-ZZZZZZZZZZZZ', '%7B%7D'];

/** A path parameter: junk, percent-encoded hostile strings, or very long (within Node's header limit). */
export const pathValue: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...PATH_JUNK),
  nastyString.map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, '\ufffd'))),
  fc.integer({ min: 200, max: 4_000 }).map((n) => 'a'.repeat(n)),
);

/** A query value: numbers out of range, floats, negative, NUL, invalid percent-encoding, huge. */
export const queryValue: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...NUMBER_TEXTS, 'NaN', 'Infinity', '', '%00', '1%00', '%', '%zz', '%FF', '+', 'true', '[]', '{}', 'a&b', '%26', '1,2'),
  nastyString.map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, '\ufffd'))),
  fc.integer({ min: 100, max: 2_500 }).map((n) => '9'.repeat(n)),
);

function fillPath(op: FuzzOperation, values: Record<string, string>, context: FuzzContext): string {
  return op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    if (values[name] !== undefined) return values[name];
    const param = op.pathParams.find((p) => p.name === name);
    return encodeURIComponent(String(baselineValue(param?.schema ?? {}, name, context)));
  });
}

function baselineQuery(op: FuzzOperation, context: FuzzContext): Array<[string, string]> {
  return op.queryParams.map((p) => [p.name, encodeURIComponent(String(baselineValue(p.schema, p.name, context)))]);
}

function withQuery(path: string, pairs: Array<[string, string]>): string {
  return pairs.length === 0 ? path : `${path}?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}`;
}

function jsonBody(op: FuzzOperation, context: FuzzContext): string | undefined {
  if (!op.body) return undefined;
  return JSON.stringify(baselineBodies(op.body, context)[0]);
}

/**
 * Hostile requests for one operation: each mutates one dimension (body, query, path,
 * headers, content type, method) of an otherwise valid-shaped request.
 */
export function hostileRequest(op: FuzzOperation, context: FuzzContext): fc.Arbitrary<HostileRequest> {
  const limit = context.bodyLimitBytes;
  const base = (): HostileRequest => {
    const body = takesBody(op.method) ? jsonBody(op, context) : undefined;
    return {
      kind: 'baseline',
      method: op.method,
      path: withQuery(fillPath(op, {}, context), baselineQuery(op, context)),
      headers: { ...baseHeaders(op), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body } : {}),
    };
  };
  const arbitraries: Array<{ arbitrary: fc.Arbitrary<HostileRequest>; weight: number }> = [];

  if (takesBody(op.method)) {
    const json = (kind: string, body: string | Uint8Array): HostileRequest => ({ ...base(), kind, headers: { ...baseHeaders(op), 'content-type': 'application/json' }, body });
    arbitraries.push({ arbitrary: hostileJson(limit - 64).map((body) => json('body: hostile value', body)), weight: 2 });
    arbitraries.push({ arbitrary: brokenBody.map((body) => json('body: broken JSON or bytes', body)), weight: 1 });
    arbitraries.push({
      arbitrary: fc.constantFrom(limit - 16, limit + 1, limit * 2).map((size) => {
        const filler = 'x'.repeat(Math.max(0, size - 10));
        return json(`body: ${size} bytes (limit ${limit})`, `{"a":"${filler}"}`);
      }),
      weight: 1,
    });
    const fields = op.body ? fieldNames(op.body) : [];
    const variants = op.body ? baselineBodies(op.body, context) : [{}];
    const mutation = fc.oneof(
      fc.tuple(fc.constantFrom(...(fields.length > 0 ? fields : ['a'])), hostileJson(limit - 512)).map(([field, value]) => ({ field, value, how: 'set' as const })),
      fc.constantFrom(...(fields.length > 0 ? fields : ['a'])).map((field) => ({ field, value: '', how: 'delete' as const })),
      fc.tuple(fc.constantFrom('__proto__', 'constructor', 'prototype', 'extra', ''), fc.constantFrom(...PROTOTYPE_OBJECTS, '1', 'null')).map(([field, value]) => ({ field, value, how: 'add' as const })),
    );
    arbitraries.push({
      arbitrary: fc.tuple(fc.nat({ max: variants.length - 1 }), mutation).map(([index, { field, value, how }]) => {
        const parts = Object.entries(variants[index] ?? {})
          .filter(([key]) => how === 'add' || key !== field)
          .map(([key, v]) => `${JSON.stringify(key)}:${JSON.stringify(v)}`);
        if (how !== 'delete') parts.push(`${JSON.stringify(field)}:${value}`);
        return json(`body: ${how} ${field}`, `{${parts.join(',')}}`);
      }),
      weight: fields.length > 0 ? 6 : 1,
    });
    arbitraries.push({
      arbitrary: contentType.map((headers) => ({ ...base(), kind: 'content type', headers: { ...baseHeaders(op), ...headers } })),
      weight: 1,
    });
  }

  const queryNames = [...op.queryParams.map((p) => p.name), '__proto__', 'constructor', 'a[b]', 'limit', 'after_seq', 'name'];
  arbitraries.push({
    arbitrary: fc
      .array(fc.tuple(fc.constantFrom(...queryNames), queryValue), { minLength: 1, maxLength: 4 })
      .map((pairs) => ({ ...base(), kind: 'query', path: withQuery(fillPath(op, {}, context), [...baselineQuery(op, context).filter(([k]) => !pairs.some(([n]) => n === k)), ...pairs]) })),
    weight: op.queryParams.length > 0 ? 4 : 1,
  });

  if (op.pathParams.length > 0) {
    arbitraries.push({
      arbitrary: fc
        .tuple(fc.constantFrom(...op.pathParams.map((p) => p.name)), pathValue)
        .map(([name, value]) => ({ ...base(), kind: `path: ${name}`, path: withQuery(fillPath(op, { [name]: value }, context), baselineQuery(op, context)) })),
      weight: 4,
    });
  }

  arbitraries.push({
    arbitrary: fc.tuple(authorizationHeader, fc.option(fc.constantFrom('x-forwarded-for', 'x-real-ip', 'forwarded', 'host', 'origin'))).map(([authorization, extra]) => {
      const request = base();
      const headers: Record<string, string> = { ...request.headers };
      delete headers.authorization;
      if (authorization !== null) headers.authorization = authorization;
      if (extra === 'x-forwarded-for' || extra === 'x-real-ip') headers[extra] = '::1, 999.1.1.1, \u00e9';
      else if (extra === 'forwarded') headers.forwarded = 'for="[::1';
      else if (extra === 'origin') headers.origin = 'null';
      return { ...request, kind: 'headers', headers };
    }),
    weight: 3,
  });

  arbitraries.push({
    arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS').filter((m) => m !== op.method).map((method) => {
      const request = base();
      return { ...request, kind: 'method', method, ...(takesBody(method) ? {} : { body: undefined }) };
    }),
    weight: 1,
  });

  return fc.oneof(...arbitraries);
}

// ---------------------------------------------------------------------------------------------
// Database snapshots

/** Every table of the backend's database (both dialects). */
export async function tableNames(backend: WalletBackend): Promise<string[]> {
  const { knex } = backend.db;
  if (knex.client.config.client === 'better-sqlite3' || String(knex.client.config.client).includes('sqlite')) {
    const rows = (await knex.raw("select name from sqlite_master where type = 'table' and name not like 'sqlite_%'")) as Array<{ name: string }>;
    return rows.map((r) => r.name).sort();
  }
  const result = (await knex.raw('select table_name from information_schema.tables where table_schema = current_schema()')) as { rows: Array<{ table_name: string }> };
  return result.rows.map((r) => r.table_name).sort();
}

function canonical(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (Buffer.isBuffer(value)) return value.toString('hex');
  if (typeof value === 'bigint') return value.toString();
  return value;
}

/** A hash of each table's rows (order-independent). */
export async function snapshotTables(backend: WalletBackend, tables: readonly string[]): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  await Promise.all(
    tables.map(async (table) => {
      const rows = (await backend.db.knex(table).select('*')) as Array<Record<string, unknown>>;
      const lines = rows.map((row) => JSON.stringify(Object.keys(row).sort().map((k) => [k, canonical(row[k])]))).sort();
      out[table] = `${rows.length}:${createHash('sha256').update(lines.join('\n')).digest('hex').slice(0, 16)}`;
    }),
  );
  return out;
}

/** A request as a human reads it: long strings and bytes shortened, control characters escaped. */
export function describeRequest(request: HostileRequest): string {
  const short = (text: string) => {
    const escaped = JSON.stringify(text.length > 300 ? text.slice(0, 200) : text);
    return text.length > 300 ? `${escaped} … (${text.length} chars in all)` : escaped;
  };
  const body =
    request.body === undefined
      ? '(none)'
      : typeof request.body === 'string'
        ? short(request.body)
        : `bytes ${Buffer.from(request.body).toString('hex').slice(0, 400)}${request.body.length > 200 ? ` … (${request.body.length} bytes)` : ''}`;
  const headers = Object.entries(request.headers)
    .map(([k, v]) => `${k}: ${short(v)}`)
    .join('; ');
  return `[${request.kind}] ${request.method} ${request.path.length > 300 ? `${request.path.slice(0, 200)} … (${request.path.length} chars)` : request.path}\n    headers: ${headers || '(none)'}\n    body: ${body}`;
}
