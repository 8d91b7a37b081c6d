import { validateSettings, type Settings, type SettingsInput } from '../config/index.js';
import { BootError } from '../errors/index.js';
import { checkPluginSet, type PluginDeclaration } from '../plugin/index.js';

/**
 * The settings, once core's rules and every plugin's declarations and configuration rules accept
 * them; otherwise a BootError listing every problem at once. Nothing is opened before this.
 */
export function checkConfiguration(input: SettingsInput, declarations: readonly PluginDeclaration[]): Settings {
  const verdict = validateSettings(input);
  // The plugins' rules still run on what was given, so one refusal lists everything.
  const problems = [...verdict.violations, ...checkPluginSet(declarations, (verdict.settings ?? input) as Partial<Settings>)];
  if (!verdict.ok || problems.length > 0) throw new BootError(problems);
  return verdict.settings;
}
