import { toJsonSchema } from '@valibot/to-json-schema';
import type { AnySchema } from './route.js';

type Json = Record<string, unknown>;
export type TypeMode = 'input' | 'output';

/** What OpenAPI allows as a components key, narrowed to a type name a client generator can use as is. */
const COMPONENT_NAME = /^[A-Z][A-Za-z0-9]*$/;
export const COMPONENT_SCHEMA_PREFIX = '#/components/schemas/';

/**
 * The name a schema declares for itself: `v.title('AuthResponse')` in its own pipe. A named
 * body or response schema becomes a reusable component (`#/components/schemas/AuthResponse`)
 * wherever it appears, at the top or nested, so generated clients get one named type for it.
 */
export function schemaName(schema: AnySchema): string | undefined {
  const pipe = (schema as { pipe?: ReadonlyArray<{ kind?: string; type?: string; title?: unknown }> }).pipe;
  const title = pipe?.find((item) => item.kind === 'metadata' && item.type === 'title')?.title;
  return typeof title === 'string' ? title : undefined;
}

function isSchema(value: unknown): value is AnySchema {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'schema';
}

/**
 * Every named schema inside `root` (itself included). The walk is generic over valibot's shapes:
 * a child schema sits in a property (`item`, `wrapped`, `key`, `value`, `rest`), in a list
 * (`options`, `items`, `pipe`) or in a record (`entries`).
 */
function namedSchemasIn(root: AnySchema): Set<AnySchema> {
  const named = new Set<AnySchema>();
  const seen = new Set<unknown>();
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (!isSchema(node) || seen.has(node)) continue;
    seen.add(node);
    if (schemaName(node) !== undefined) named.add(node);
    for (const [key, value] of Object.entries(node)) {
      if (key === '~standard') continue;
      if (isSchema(value)) stack.push(value);
      else if (Array.isArray(value)) stack.push(...value);
      else if (key === 'entries' && typeof value === 'object' && value !== null) stack.push(...Object.values(value));
    }
  }
  return named;
}

/**
 * The named schemas of one document: each converted once into `components/schemas` and `$ref`'d
 * from every operation that uses it. One name may be given by two schema objects only if they
 * describe the same JSON (a plugin's own `{ ok: true }` titled `OkResponse` is core's type);
 * two different shapes under one name would make a generated client's type lie about one of
 * them, so that is an error when the document is built.
 */
export class SchemaComponents {
  private readonly schemas: Record<string, Json> = {};
  /** Where each name was first defined, for the error message. */
  private readonly firstUse: Record<string, string> = {};

  /** `reserved`: names the generator writes itself (`ErrorResponse`). */
  constructor(private readonly reserved: ReadonlySet<string>) {}

  /** The JSON Schema of a body or response, with every named schema in it replaced by a `$ref`. */
  convert(schema: AnySchema, typeMode: TypeMode, where: string): Json {
    const named = [...namedSchemasIn(schema)];
    const ids = new Map(named.map((item, index) => [`d${index}`, item]));
    const json = toJsonSchema(schema, {
      target: 'draft-2020-12',
      typeMode,
      errorMode: 'ignore',
      definitions: Object.fromEntries(ids),
      overrideRef: ({ referenceId }) => COMPONENT_SCHEMA_PREFIX + schemaName(ids.get(referenceId)!)!,
    }) as Json;
    const defs = (json.$defs ?? {}) as Record<string, Json>;
    for (const [id, item] of ids) this.define(schemaName(item)!, defs[id]!, `${where} (${typeMode})`);
    delete json.$defs;
    delete json.$schema;
    return json;
  }

  private define(name: string, json: Json, where: string): void {
    if (!COMPONENT_NAME.test(name)) {
      throw new Error(`OpenAPI: schema name "${name}" (${where}) is not a type name: use PascalCase letters and digits (v.title('UserInfo')).`);
    }
    if (this.reserved.has(name)) throw new Error(`OpenAPI: schema name "${name}" (${where}) is the generator's own; choose another v.title().`);
    const existing = this.schemas[name];
    if (existing === undefined) {
      this.schemas[name] = json;
      this.firstUse[name] = where;
    } else if (JSON.stringify(existing) !== JSON.stringify(json)) {
      throw new Error(`OpenAPI: two different schemas are named "${name}": ${this.firstUse[name]} and ${where}. Give one of them another v.title().`);
    }
  }

  /** The components, sorted by name so the document is stable whatever the route order. */
  all(): Record<string, Json> {
    return Object.fromEntries(Object.entries(this.schemas).sort(([a], [b]) => a.localeCompare(b)));
  }
}
