import * as v from 'valibot';
import type { Clock } from '../clock/index.js';
import type { Settings } from '../config/index.js';
import type { Integrity } from '../crypto/index.js';
import type { Logger } from '../logger/index.js';
import { readTime, type Database, type Executor } from '../storage/index.js';

const text = (max: number) => v.pipe(v.string('must be a string'), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(max, `must be at most ${max} characters`));
const whole = (min: number, max: number) => v.pipe(v.number('must be a number'), v.integer('must be a whole number'), v.minValue(min, `must be at least ${min}`), v.maxValue(max, `must be at most ${max}`));

/**
 * The operator settings overlay (spec › Operator setting). Each section's schema lists every
 * field it may hold; none is a secret, so a secret cannot be stored here by construction.
 */
export const SETTING_SECTIONS = {
  landing: v.strictObject({
    title: v.optional(text(80)),
    tagline: v.optional(text(200)),
    announcement: v.optional(text(1_000)),
    contact_url: v.optional(v.pipe(v.string(), v.url('must be a URL'), v.startsWith('https://', 'must use https'))),
  }),
  retention: v.strictObject({
    login_event_retention_days: v.optional(whole(1, 3_650)),
  }),
  restore: v.strictObject({
    ip_threshold: v.optional(whole(1, 100_000)),
    fail_threshold: v.optional(whole(1, 10_000)),
    window_sec: v.optional(whole(60, 30 * 86_400)),
  }),
} as const;

export type SettingSection = keyof typeof SETTING_SECTIONS;
export type SectionValues<S extends SettingSection> = v.InferOutput<(typeof SETTING_SECTIONS)[S]>;
export const isSettingSection = (name: string): name is SettingSection => Object.hasOwn(SETTING_SECTIONS, name);

/** How a written section takes effect: every consumer reads it at its next use. */
export const APPLY_MODE = 'immediate' as const;

interface StoredSection {
  section: string;
  body: string;
  updated_at: unknown;
  mac: string;
}

export interface SectionView<S extends SettingSection = SettingSection> {
  section: S;
  /** What the server uses now: the overlay over the configured defaults. */
  effective: Required<SectionValues<S>> | SectionValues<S>;
  /** What an operator stored, or null. */
  overlay: SectionValues<S> | null;
  defaults: SectionValues<S>;
  updated_at: string | null;
  /** The stored row failed its integrity check: it is ignored and the defaults apply. */
  tampered: boolean;
  apply: typeof APPLY_MODE;
}

const DOMAIN = 'operator_settings';

/** Reads and writes the sealed sections; readers fall back to the configured defaults when a row is missing or tampered. */
export class OperatorSettings {
  constructor(
    private readonly db: Database,
    private readonly integrity: Integrity,
    private readonly clock: Clock,
    private readonly settings: () => Settings,
    private readonly logger: Logger,
  ) {}

  defaults<S extends SettingSection>(section: S): SectionValues<S> {
    const s = this.settings();
    const all = {
      landing: {},
      retention: { login_event_retention_days: s.loginEventRetentionDays },
      restore: { ip_threshold: s.restoreIpThreshold, fail_threshold: s.restoreFailThreshold, window_sec: s.restoreWindowSec },
    };
    return all[section] as SectionValues<S>;
  }

  async view<S extends SettingSection>(section: S, executor: Executor = this.db.knex): Promise<SectionView<S>> {
    const row = (await executor('operator_settings').where({ section }).first()) as StoredSection | undefined;
    const defaults = this.defaults(section);
    const base = { section, defaults, apply: APPLY_MODE };
    if (row === undefined) return { ...base, effective: defaults, overlay: null, updated_at: null, tampered: false };
    const updatedAt = readTime(row.updated_at);
    const parsed = v.safeParse(SETTING_SECTIONS[section], safeJson(row.body));
    if (!this.integrity.verify(DOMAIN, [section, row.body, updatedAt.toISOString()], row.mac) || !parsed.success) {
      this.logger.error('operator settings section failed its integrity check; using the configured defaults', { section });
      return { ...base, effective: defaults, overlay: null, updated_at: updatedAt.toISOString(), tampered: true };
    }
    const overlay = parsed.output as SectionValues<S>;
    return { ...base, effective: { ...defaults, ...overlay }, overlay, updated_at: updatedAt.toISOString(), tampered: false };
  }

  async effective<S extends SettingSection>(section: S): Promise<SectionValues<S>> {
    return (await this.view(section)).effective;
  }

  /** Replaces a section's overlay (validated by the caller) inside `executor`'s transaction. */
  async write<S extends SettingSection>(section: S, values: SectionValues<S>, executor: Executor): Promise<void> {
    const body = JSON.stringify(values);
    const updatedAt = new Date(this.clock.now().getTime());
    const row = { section, body, updated_at: this.db.dialect.time(updatedAt), mac: this.integrity.seal(DOMAIN, [section, body, updatedAt.toISOString()]) };
    await executor('operator_settings').insert(row).onConflict('section').merge();
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
