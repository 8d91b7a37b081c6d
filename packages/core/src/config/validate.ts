import * as v from 'valibot';
import { settingsSchema, type Settings } from './schema.js';
import { crossFieldViolations } from './rules.js';

/** `publicApiUrl` → `PUBLIC_API_URL`: the one-to-one mapping between settings and environment. */
export function envNameOf(key: string): string {
  return key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
}

export type SettingsVerdict =
  | { ok: true; settings: Settings; violations: [] }
  | { ok: false; settings: undefined; violations: string[] };

/**
 * Validates settings and returns EVERY violation at once (spec, General rules 3 and 4): the
 * schema is checked without stopping at the first issue, then the cross-field rules.
 */
export function validateSettings(input: unknown): SettingsVerdict {
  const parsed = v.safeParse(settingsSchema, input, { abortEarly: false });
  if (!parsed.success) {
    const violations = parsed.issues.map((issue) => {
      const key = v.getDotPath(issue) ?? '(settings)';
      // An unknown key has no environment variable; naming one would mislead.
      if (issue.type === 'strict_object') return `${key}: ${issue.message}`;
      const head = key.split('.')[0] ?? key;
      return `${key} (${envNameOf(head)}): ${issue.message}`;
    });
    return { ok: false, settings: undefined, violations };
  }
  const violations = crossFieldViolations(parsed.output);
  if (violations.length > 0) return { ok: false, settings: undefined, violations };
  return { ok: true, settings: parsed.output, violations: [] };
}
