import * as v from 'valibot';
import { settingsSchema, type Settings } from './schema.js';
import { crossFieldViolations } from './rules.js';

import { envNameOf } from './env-name.js';

export { envNameOf };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export type SettingsVerdict =
  | { ok: true; settings: Settings; violations: [] }
  | { ok: false; settings: undefined; violations: string[] };

/**
 * Validates settings and returns EVERY violation at once (spec, General rules 3 and 4): the
 * schema is checked without stopping at the first issue, and the cross-field rules run on
 * every field that is usable, whether or not the rest passed.
 */
export function validateSettings(input: unknown): SettingsVerdict {
  const parsed = v.safeParse(settingsSchema, input, { abortEarly: false });
  if (!parsed.success) {
    const violations = parsed.issues.map((issue) => {
      const key = v.getDotPath(issue) ?? '(settings)';
      const head = key.split('.')[0] ?? key;
      if (issue.type === 'strict_object') {
        // valibot reports an unknown key (expected `never`) and a missing required key alike.
        // An unknown key has no environment variable; naming one would mislead.
        if (issue.expected === 'never') return `${key}: is not a known setting`;
        return `${key} (${envNameOf(head)}): is required`;
      }
      return `${key} (${envNameOf(head)}): ${issue.message}`;
    });
    // The cross-field rules still run, on whatever fields are usable, so the operator hears
    // about every problem in one go.
    violations.push(...crossFieldViolations(isRecord(input) ? input : {}));
    return { ok: false, settings: undefined, violations };
  }
  const violations = crossFieldViolations(parsed.output);
  if (violations.length > 0) return { ok: false, settings: undefined, violations };
  return { ok: true, settings: parsed.output, violations: [] };
}
