/**
 * Values every body schema must refuse cleanly (400, never 500), after noble-curves'
 * `getTypeTests`: wrong types, edge numbers, oversize strings, prototype keys, deep nesting.
 */
export const HOSTILE_BODIES: ReadonlyArray<{ label: string; raw: string }> = [
  { label: 'null', raw: 'null' },
  { label: 'array', raw: '[]' },
  { label: 'string', raw: '"x"' },
  { label: 'number', raw: '1e309' },
  { label: 'boolean', raw: 'true' },
  { label: 'empty object', raw: '{}' },
  { label: '__proto__ key', raw: '{"__proto__":{"admin":true}}' },
  { label: 'constructor key', raw: '{"constructor":{"prototype":{"x":1}}}' },
  { label: 'deep nesting', raw: '['.repeat(5000) + ']'.repeat(5000) },
  { label: 'huge string field', raw: JSON.stringify({ refresh_token: 'x'.repeat(100_000) }) },
  { label: 'NUL bytes', raw: JSON.stringify({ refresh_token: '\u0000\u0000' }) },
  { label: 'number where string expected', raw: '{"refresh_token":12345678901234567890}' },
];
