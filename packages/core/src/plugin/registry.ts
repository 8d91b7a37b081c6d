import { withoutSecrets, type Settings } from '../config/index.js';
import { fullPath, operationIdProblems, routeKey, type AnyRoute } from '../http/index.js';
import { checkMigrationSets } from '../storage/index.js';
import type { PluginDeclaration, WalletPlugin } from './contract.js';

const PLUGIN_NAME = /^[a-z][a-z0-9-]{0,39}$/;
const VERSION = /^\d{1,6}\.\d{1,6}\.\d{1,6}(-[0-9A-Za-z.-]{1,40})?(\+[0-9A-Za-z.-]{1,40})?$/;
const ROUTE_CLAIM = /^(GET|POST|PUT|PATCH|DELETE|OPTIONS) \/[A-Za-z0-9._~{}/-]*$/;

/** `/users/{id}` and `/users/{user_id}` are one route to the router. */
const sameRoute = (key: string) => key.replace(/\{[^}]+\}/g, '{}');

/** What a plugin declares as data beside `setup`: readable without booting anything. */
export interface PluginSurface {
  name: string;
  version: string | null;
  dependencies: string[];
  /** Ledger ids, `<plugin>/<id>`. */
  migrations: string[];
  /** Every error code of its declared catalogues, with its HTTP status. */
  errors: Array<{ code: string; status: number }>;
  /** The routes `setup` may add (`METHOD /full/path`); null when the plugin does not declare them. */
  routes: string[] | null;
}

/** A plugin's declared surface, without calling `setup` or touching a database. */
export function describePlugin(plugin: WalletPlugin | PluginDeclaration): PluginSurface {
  return {
    name: plugin.name,
    version: plugin.version ?? null,
    dependencies: [...(plugin.dependencies ?? [])],
    migrations: (plugin.migrations ?? []).map((migration) => `${plugin.name}/${migration.id}`),
    errors: (plugin.errors ?? []).flatMap((catalogue) => Object.entries(catalogue.specs).map(([code, spec]) => ({ code, status: spec.status }))),
    routes: plugin.routes === undefined ? null : [...plugin.routes],
  };
}

/** The declared parts every plugin set must agree on: versions' shape, dependencies present and earlier, error codes and routes unique. */
function declarationProblems(plugins: readonly PluginDeclaration[]): string[] {
  const problems: string[] = [];
  const position = new Map<string, number>();
  plugins.forEach((plugin, index) => {
    if (!position.has(plugin.name)) position.set(plugin.name, index);
  });
  const codes = new Map<string, string>();
  const routes = new Map<string, string>();
  plugins.forEach((plugin, index) => {
    if (plugin.version !== undefined && (typeof plugin.version !== 'string' || !VERSION.test(plugin.version))) {
      problems.push(`plugin "${plugin.name}": version "${String(plugin.version)}" is not major.minor.patch`);
    }
    // Plain JavaScript can declare anything: a wrong shape is a problem to list, not a throw.
    const dependencies: unknown = plugin.dependencies ?? [];
    const errors: unknown = plugin.errors ?? [];
    const claims: unknown = plugin.routes ?? [];
    if (!Array.isArray(dependencies) || !dependencies.every((name) => typeof name === 'string')) {
      problems.push(`plugin "${plugin.name}": dependencies must be an array of plugin names`);
      return;
    }
    if (!Array.isArray(errors) || !errors.every((catalogue) => typeof catalogue === 'object' && catalogue !== null && typeof (catalogue as { specs?: unknown }).specs === 'object' && (catalogue as { specs?: unknown }).specs !== null)) {
      problems.push(`plugin "${plugin.name}": errors must be an array of catalogues made with defineErrors`);
      return;
    }
    if (!Array.isArray(claims) || !claims.every((claim) => typeof claim === 'string')) {
      problems.push(`plugin "${plugin.name}": routes must be an array of "METHOD /path" strings`);
      return;
    }
    for (const dependency of plugin.dependencies ?? []) {
      const at = position.get(dependency);
      if (dependency === plugin.name) problems.push(`plugin "${plugin.name}" names itself as a dependency`);
      else if (at === undefined) problems.push(`plugin "${plugin.name}" needs plugin "${dependency}", which is not registered`);
      else if (at > index) problems.push(`plugin "${plugin.name}" needs plugin "${dependency}": register "${dependency}" before it`);
    }
    for (const { code } of describePlugin(plugin).errors) {
      const owner = codes.get(code);
      if (owner === undefined) codes.set(code, plugin.name);
      else if (owner !== plugin.name) problems.push(`error code "${code}" is declared by plugin "${owner}" and by plugin "${plugin.name}"`);
    }
    for (const claim of plugin.routes ?? []) {
      if (!ROUTE_CLAIM.test(claim)) {
        problems.push(`plugin "${plugin.name}": route "${claim}" is not "METHOD /path" (GET, POST, PUT, PATCH, DELETE or OPTIONS, then the full path)`);
        continue;
      }
      const owner = routes.get(sameRoute(claim));
      if (owner === undefined) routes.set(sameRoute(claim), plugin.name);
      else problems.push(`route ${claim} is declared by plugin "${owner}" and by plugin "${plugin.name}"`);
    }
  });
  return problems;
}

/** Problems visible before any plugin runs: names, migration ids, configuration rules. */
export function checkPluginSet(plugins: readonly PluginDeclaration[], settings: Readonly<Partial<Settings>>): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const plugin of plugins) {
    if (!PLUGIN_NAME.test(plugin.name)) problems.push(`plugin "${plugin.name}": name must be lower-case letters, digits and dashes`);
    if (seen.has(plugin.name)) problems.push(`plugin "${plugin.name}" is registered twice`);
    seen.add(plugin.name);
  }
  problems.push(...checkMigrationSets(plugins.map((plugin) => ({ owner: plugin.name, migrations: plugin.migrations ?? [] }))));
  problems.push(...declarationProblems(plugins));
  // Plugins check their options against the settings, never against a secret's value.
  const visible = withoutSecrets(settings);
  for (const plugin of plugins) {
    try {
      for (const violation of plugin.validateConfig?.(visible) ?? []) problems.push(`${plugin.name}: ${violation}`);
    } catch (err) {
      problems.push(`${plugin.name}: configuration check threw: ${(err as Error).message}`);
    }
  }
  return problems;
}

/**
 * Collects the routes plugins add with their owner and finds method + path added twice, and a
 * route added by a plugin that declared its routes without it.
 */
export class RouteRegistry {
  private readonly entries: Array<{ owner: string; route: AnyRoute }> = [];
  private readonly claims: Map<string, Set<string>>;

  constructor(declarations: readonly PluginDeclaration[] = []) {
    this.claims = new Map(declarations.filter((plugin) => Array.isArray(plugin.routes)).map((plugin) => [plugin.name, new Set(plugin.routes!.map(sameRoute))]));
  }

  add(owner: string, route: AnyRoute): void {
    this.entries.push({ owner, route });
  }

  get routes(): AnyRoute[] {
    return this.entries.map((entry) => entry.route);
  }

  problems(): string[] {
    const problems: string[] = [];
    const owners = new Map<string, string>();
    for (const { owner, route } of this.entries) {
      if (!/^\/[A-Za-z0-9._~{}/-]*$/.test(route.path)) problems.push(`route ${route.method} ${route.path} of ${owner}: path must start with / and use only URL-safe characters`);
      if (route.bodyLimitBytes !== undefined && (!Number.isInteger(route.bodyLimitBytes) || route.bodyLimitBytes < 1_024 || route.bodyLimitBytes > 16 * 1_048_576)) {
        problems.push(`route ${route.method} ${route.path} of ${owner}: bodyLimitBytes must be an integer from 1024 to 16777216`);
      }
      const key = sameRoute(routeKey(route));
      if (this.claims.get(owner)?.has(key) === false) problems.push(`route ${routeKey(route)} is added by ${owner}'s setup but not among its declared routes`);
      const first = owners.get(key);
      if (first !== undefined) problems.push(`route ${route.method} ${fullPath(route)} is declared by both ${first} and ${owner}`);
      else owners.set(key, owner);
    }
    problems.push(...operationIdProblems(this.entries.map((entry) => entry.route)));
    return problems;
  }
}
