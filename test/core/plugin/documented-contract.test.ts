import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { expect } from 'chai';
import ts from 'typescript';
import { REPO_ROOT } from '../../harness/index.js';

/**
 * The shipped packages use core only through its documented plugin contract:
 *
 * 1. they import core only by its package name `@wallet/backend-core` (or a subpath its
 *    package.json `exports` declares), never by a relative path into packages/core nor by a deep
 *    path such as `@wallet/backend-core/dist/…`;
 * 2. every name a feature package imports from core is inline code in docs/plugins.md (a package
 *    that is not a plugin, relay-admission, may use the docs it cites instead);
 * 3. every property path a feature package reads off the plugin context exists on `PluginContext`
 *    (packages/core/src/plugin/contract.ts), and its top-level member is inline code in
 *    docs/plugins.md.
 *
 * Everything is computed from the sources with the TypeScript compiler API: nothing here lists
 * what the packages currently import.
 */

const CORE = '@wallet/backend-core';
const CORE_DIR = join(REPO_ROOT, 'packages', 'core');
const CONTRACT = join(CORE_DIR, 'src', 'plugin', 'contract.ts');
const PLUGINS_DOC = 'docs/plugins.md';

const repoPath = (file: string) => relative(REPO_ROOT, file).split(sep).join('/');
const isSource = (name: string) => /\.(?:[cm]?ts|tsx)$/.test(name) && !/\.d\.[cm]?ts$/.test(name);

function sourceFilesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && isSource(entry.name))
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((file) => !file.split(sep).includes('node_modules'))
    .sort();
}

interface ShippedPackage {
  dir: string; // repo path: packages/tips
  files: string[];
}

function shippedPackages(parent: 'packages' | 'examples'): ShippedPackage[] {
  const root = join(REPO_ROOT, parent);
  if (!existsSync(root)) return [];
  return readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !(parent === 'packages' && entry.name === 'core'))
    .map((entry) => ({ dir: `${parent}/${entry.name}`, files: sourceFilesUnder(join(root, entry.name, 'src')) }))
    .filter((pkg) => pkg.files.length > 0);
}

/** The specifiers core's package.json `exports` allows: `@wallet/backend-core`, `@wallet/backend-core/testing`… */
function coreSubpathMatchers(): RegExp[] {
  const { exports } = JSON.parse(readFileSync(join(CORE_DIR, 'package.json'), 'utf8')) as { exports?: unknown };
  const keys = typeof exports === 'object' && exports !== null && Object.keys(exports).some((key) => key.startsWith('.')) ? Object.keys(exports) : ['.'];
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return keys.map((key) => new RegExp(`^${escape(CORE + key.slice(1)).replace('\\*', '[^]+')}$`));
}

interface Specifier {
  text: string;
  node: ts.Node; // the declaration or call that carries it
}

/** Every module a file names: import and export declarations, `import x = require()`, `import()`, `require()` and `import('…')` types. */
function moduleSpecifiers(source: ts.SourceFile): Specifier[] {
  const found: Specifier[] = [];
  const literal = (node: ts.Node | undefined) => (node !== undefined && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) ? node.text : undefined);
  const visit = (node: ts.Node): void => {
    let text: string | undefined;
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier !== undefined) text = literal(node.moduleSpecifier);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) text = literal(node.moduleReference.expression);
    else if (ts.isCallExpression(node) && (node.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(node.expression) && node.expression.text === 'require'))) text = literal(node.arguments[0]);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) text = literal(node.argument.literal);
    if (text !== undefined) found.push({ text, node });
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const lineOf = (node: ts.Node) => node.getSourceFile().getLineAndCharacterOfPosition(node.getStart()).line + 1;

/** Why `specifier`, named in `file`, reaches core other than through its package name; undefined when it does not. */
function badCoreReference(file: string, specifier: string, allowed: RegExp[]): string | undefined {
  if (specifier === CORE || specifier.startsWith(`${CORE}/`)) {
    return allowed.some((matcher) => matcher.test(specifier)) ? undefined : 'a path core’s package.json "exports" does not declare';
  }
  if (specifier.startsWith('.') || specifier.startsWith('/')) {
    const target = resolve(dirname(file), specifier);
    if (target === CORE_DIR || target.startsWith(CORE_DIR + sep)) return 'a relative path into packages/core';
  }
  return undefined;
}

/** `file:line specifier (why)` for every reference to core outside its package name in these files. */
function coreReferenceViolations(files: readonly string[], allowed: RegExp[]): string[] {
  return files.flatMap((file) => {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    return moduleSpecifiers(source).flatMap(({ text, node }) => {
      const why = badCoreReference(file, text, allowed);
      return why === undefined ? [] : [`${repoPath(file)}:${lineOf(node)} imports '${text}' (${why})`];
    });
  });
}

/** A fenced block: its fence, language and body. */
const FENCE = /^ {0,3}(```|~~~)[ \t]*([\w-]*)[^\n]*\n([\s\S]*?)^ {0,3}\1[ \t]*$/gm;

/** Inline code spans of a markdown document (fenced blocks left out). */
function inlineCode(markdown: string): string[] {
  const prose = markdown.replace(FENCE, '');
  return [...prose.matchAll(/(`+)(?!`)([\s\S]+?)(?<!`)\1(?!`)/g)].map(([, , code]) => code!.trim());
}

/** The TypeScript fenced blocks of a markdown document, parsed. */
function fencedTypeScript(markdown: string): ts.SourceFile[] {
  return [...markdown.matchAll(FENCE)].filter(([, , lang]) => lang === 'ts' || lang === 'typescript').map(([, , , body], index) => ts.createSourceFile(`block-${index}.ts`, body!, ts.ScriptTarget.Latest, true));
}

/**
 * The names a doc shows: identifiers at the root of an expression in its inline code
 * (`readTime(row)`, `Knex.Transaction`, not `lock` of `users.lock`), the interfaces and types
 * its TypeScript blocks declare (`interface WalletPlugin { … }`), and the names those blocks
 * import from core (`import { defineErrors } from '@wallet/backend-core'`).
 */
function documentedNames(docs: readonly string[], isCore: (specifier: string) => boolean): Set<string> {
  const names = new Set<string>();
  for (const doc of docs) {
    const markdown = readFileSync(join(REPO_ROOT, doc), 'utf8');
    for (const code of inlineCode(markdown)) {
      for (const match of code.matchAll(/(?<![\w$.])[A-Za-z_$][\w$]*/g)) names.add(match[0]);
    }
    for (const block of fencedTypeScript(markdown)) {
      for (const statement of block.statements) {
        if ((ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement)) && statement.name.text !== '') names.add(statement.name.text);
        if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier) && isCore(statement.moduleSpecifier.text)) {
          const bindings = statement.importClause?.namedBindings;
          if (bindings !== undefined && ts.isNamedImports(bindings)) for (const element of bindings.elements) names.add((element.propertyName ?? element.name).text);
        }
      }
    }
  }
  return names;
}

/** The context members inline code in the doc names: `users.lock(trx, userId)`, `ctx.auth` and `### \`hooks\`` name `users`, `auth` and `hooks`. */
function documentedMembers(doc: string): Set<string> {
  const members = new Set<string>();
  for (const code of inlineCode(readFileSync(join(REPO_ROOT, doc), 'utf8'))) {
    const root = /^(?:ctx\.)?([A-Za-z_$][\w$]*)/.exec(code);
    if (root !== null) members.add(root[1]!);
  }
  return members;
}

/** The docs a package cites (`docs/relay-operators.md` in a comment, README or package.json), that exist. */
function citedDocs(pkgDir: string): string[] {
  const root = join(REPO_ROOT, pkgDir);
  const texts = [...sourceFilesUnder(join(root, 'src')), join(root, 'README.md'), join(root, 'package.json')].filter((file) => existsSync(file)).map((file) => readFileSync(file, 'utf8'));
  const cited = texts.flatMap((text) => [...text.matchAll(/\bdocs\/([\w.-]+\.md)\b/g)].map(([, name]) => `docs/${name!}`));
  return [...new Set(cited)].filter((doc) => existsSync(join(REPO_ROOT, doc))).sort();
}

/** name → files, kept sorted for the failure messages. */
class Usage {
  readonly byKey = new Map<string, Set<string>>();
  add(key: string, file: string): void {
    const files = this.byKey.get(key) ?? new Set<string>();
    files.add(repoPath(file));
    this.byKey.set(key, files);
  }
  keys(): string[] {
    return [...this.byKey.keys()].sort();
  }
  line(key: string, label = key): string {
    return `  ${label} (${[...this.byKey.get(key)!].sort().join(', ')})`;
  }
}

/** One program over every feature package, with `@wallet/backend-core` resolved to core's src/ (the `wallet-source` condition). */
function featureProgram(files: readonly string[]): ts.Program {
  const { config } = ts.readConfigFile(join(REPO_ROOT, 'tsconfig.base.json'), (path) => ts.sys.readFile(path));
  const { options } = ts.parseJsonConfigFileContent({ compilerOptions: (config as { compilerOptions: unknown }).compilerOptions, files: [] }, ts.sys, REPO_ROOT);
  return ts.createProgram({
    rootNames: files,
    options: { ...options, noEmit: true, composite: false, declaration: false, declarationMap: false, sourceMap: false, incremental: false, customConditions: ['wallet-source'] },
  });
}

/** Every name a file imports from core (`readTime`, `PluginContext`; `Knex` for `core.Knex` through `import * as core`); `*` for a whole-module use. */
function importedCoreNames(source: ts.SourceFile, checker: ts.TypeChecker, isCore: (specifier: string) => boolean): Set<string> {
  const names = new Set<string>();
  const namespaces = new Set<ts.Symbol>();
  const text = (node: ts.Expression | ts.ModuleExportName) => (ts.isIdentifier(node) || ts.isStringLiteral(node) ? node.text : node.getText());
  for (const { text: specifier, node } of moduleSpecifiers(source)) {
    if (!isCore(specifier)) continue;
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      if (clause === undefined) continue; // `import '@wallet/backend-core'`: side effects only, no name
      if (clause.name !== undefined) names.add('default');
      const bindings = clause.namedBindings;
      if (bindings !== undefined && ts.isNamedImports(bindings)) for (const element of bindings.elements) names.add(text(element.propertyName ?? element.name));
      if (bindings !== undefined && ts.isNamespaceImport(bindings)) namespaces.add(checker.getSymbolAtLocation(bindings.name)!);
    } else if (ts.isExportDeclaration(node)) {
      if (node.exportClause !== undefined && ts.isNamedExports(node.exportClause)) for (const element of node.exportClause.elements) names.add(text(element.propertyName ?? element.name));
      else names.add('*');
    } else if (ts.isImportTypeNode(node)) {
      let qualifier: ts.EntityName | undefined = node.qualifier;
      while (qualifier !== undefined && ts.isQualifiedName(qualifier)) qualifier = qualifier.left;
      names.add(qualifier?.text ?? '*');
    } else {
      names.add('*'); // import(), require(), import x = require()
    }
  }
  if (namespaces.size > 0) {
    const visit = (node: ts.Node): void => {
      if (ts.isIdentifier(node) && !ts.isNamespaceImport(node.parent)) {
        const symbol = checker.getSymbolAtLocation(node);
        if (symbol !== undefined && namespaces.has(symbol)) {
          const { parent } = node;
          if (ts.isPropertyAccessExpression(parent) && parent.expression === node) names.add(parent.name.text);
          else if (ts.isQualifiedName(parent) && parent.left === node) names.add(parent.right.text);
          else names.add('*');
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return names;
}

/**
 * Every property path (`users.lock`, `auth.sessions.start`) read off the plugin context in a
 * file, whether through `ctx` itself, a destructured or stored part of it (`const { db } = ctx`,
 * `users: PluginContext['users']`), or a type made from it.
 */
class ContextPaths {
  private readonly memo = new Map<ts.Node, readonly string[] | null>();
  readonly context: ts.InterfaceDeclaration;
  private readonly contextSymbol: ts.Symbol;

  constructor(
    program: ts.Program,
    private readonly checker: ts.TypeChecker,
  ) {
    const contract = program.getSourceFiles().find((file) => resolve(file.fileName) === CONTRACT);
    if (contract === undefined) throw new Error(`${repoPath(CONTRACT)} is not part of the feature packages' program: does ${CORE} resolve to core's src/?`);
    const context = contract.statements.find((node): node is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(node) && node.name.text === 'PluginContext');
    if (context === undefined) throw new Error(`no PluginContext interface in ${repoPath(CONTRACT)}`);
    this.context = context;
    this.contextSymbol = checker.getSymbolAtLocation(context.name)!;
  }

  /** Whether `path` resolves, property by property, from `PluginContext`. */
  exists(path: readonly string[]): boolean {
    let type: ts.Type = this.checker.getDeclaredTypeOfSymbol(this.contextSymbol);
    for (const name of path) {
      const property = this.checker.getPropertyOfType(this.checker.getApparentType(this.checker.getNonNullableType(type)), name);
      if (property === undefined) return false;
      type = this.checker.getTypeOfSymbolAtLocation(property, this.context);
    }
    return true;
  }

  /** The paths read in `source`, each with a node that reads it. */
  read(source: ts.SourceFile): string[] {
    const paths = new Set<string>();
    const visit = (node: ts.Node): void => {
      const path = ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node) ? this.pathOf(node) : ts.isBindingElement(node) ? this.bindingPath(node) : undefined;
      if (path !== undefined && path.length > 0) paths.add(path.join('.'));
      ts.forEachChild(node, visit);
    };
    visit(source);
    return [...paths];
  }

  private isContext(type: ts.Type): boolean {
    const bare = this.checker.getNonNullableType(type);
    return bare.getSymbol() === this.contextSymbol || bare.aliasSymbol === this.contextSymbol;
  }

  private pathOf(node: ts.Node): readonly string[] | undefined {
    if (this.memo.has(node)) return this.memo.get(node) ?? undefined;
    this.memo.set(node, null); // a cycle (`let a = a.b`) resolves to nothing
    const path = this.compute(node);
    this.memo.set(node, path ?? null);
    return path;
  }

  private compute(node: ts.Node): readonly string[] | undefined {
    if (ts.isParenthesizedExpression(node) || ts.isNonNullExpression(node)) return this.pathOf(node.expression);
    if (ts.isExpression(node) && this.isContext(this.checker.getTypeAtLocation(node))) return [];
    if (ts.isPropertyAccessExpression(node)) {
      const base = this.pathOf(node.expression);
      return base !== undefined ? [...base, node.name.text] : this.fromSymbol(node.name);
    }
    if (ts.isElementAccessExpression(node)) {
      const key = node.argumentExpression;
      const base = this.pathOf(node.expression);
      return base !== undefined && ts.isStringLiteralLike(key) ? [...base, key.text] : undefined;
    }
    if (ts.isIdentifier(node)) return this.fromSymbol(node);
    return undefined;
  }

  /** The path a name stands for, from where its symbol is declared. */
  private fromSymbol(name: ts.Node): readonly string[] | undefined {
    const symbol = this.checker.getSymbolAtLocation(name);
    for (const declaration of symbol?.declarations ?? []) {
      const declared = this.declaredInContext(declaration);
      if (declared !== undefined) return declared;
      const typeNode = (declaration as { type?: ts.TypeNode }).type;
      if (typeNode !== undefined) {
        const typed = this.typePath(typeNode);
        if (typed !== undefined) return typed;
        continue;
      }
      if (ts.isVariableDeclaration(declaration) && declaration.initializer !== undefined && ts.isIdentifier(declaration.name)) return this.pathOf(declaration.initializer);
      if (ts.isBindingElement(declaration)) return this.bindingPath(declaration);
    }
    return undefined;
  }

  /** `users.lock` for the declaration of `lock` inside `PluginContext`'s `users` member; undefined when declared elsewhere. */
  private declaredInContext(declaration: ts.Node): readonly string[] | undefined {
    const names: string[] = [];
    for (let node: ts.Node | undefined = declaration; node !== undefined; node = node.parent) {
      if (node === this.context) return names.reverse();
      if (ts.isPropertySignature(node) || ts.isMethodSignature(node)) {
        if (!ts.isIdentifier(node.name) && !ts.isStringLiteral(node.name)) return undefined;
        names.push(node.name.text);
      } else if (!ts.isTypeLiteralNode(node)) {
        return undefined;
      }
    }
    return undefined;
  }

  /** `[]` for `PluginContext`, `['users']` for `PluginContext['users']`. */
  private typePath(typeNode: ts.TypeNode): readonly string[] | undefined {
    if (ts.isTypeReferenceNode(typeNode)) {
      let symbol = this.checker.getSymbolAtLocation(typeNode.typeName);
      if (symbol !== undefined && symbol.flags & ts.SymbolFlags.Alias) symbol = this.checker.getAliasedSymbol(symbol);
      return symbol === this.contextSymbol ? [] : undefined;
    }
    if (ts.isIndexedAccessTypeNode(typeNode) && ts.isLiteralTypeNode(typeNode.indexType) && ts.isStringLiteral(typeNode.indexType.literal)) {
      const base = this.typePath(typeNode.objectType);
      return base === undefined ? undefined : [...base, typeNode.indexType.literal.text];
    }
    if (ts.isParenthesizedTypeNode(typeNode)) return this.typePath(typeNode.type);
    return undefined;
  }

  /** `['db']` for the `db` of `const { db } = ctx` or `setup({ db })`. */
  bindingPath(element: ts.BindingElement): readonly string[] | undefined {
    const pattern = element.parent;
    if (!ts.isObjectBindingPattern(pattern)) return undefined;
    const key = element.propertyName ?? element.name;
    if (!ts.isIdentifier(key) && !ts.isStringLiteral(key)) return undefined;
    const base = this.patternPath(pattern);
    return base === undefined ? undefined : [...base, key.text];
  }

  private patternPath(pattern: ts.ObjectBindingPattern): readonly string[] | undefined {
    if (this.isContext(this.checker.getTypeAtLocation(pattern))) return [];
    const holder = pattern.parent;
    if (ts.isVariableDeclaration(holder) && holder.initializer !== undefined) return this.pathOf(holder.initializer);
    if ((ts.isParameter(holder) || ts.isVariableDeclaration(holder)) && holder.type !== undefined) return this.typePath(holder.type);
    if (ts.isBindingElement(holder)) return this.bindingPath(holder);
    return undefined;
  }
}

describe('plugins: shipped packages use only the documented contract of core', () => {
  const allowedSubpaths = coreSubpathMatchers();
  const isCore = (specifier: string) => allowedSubpaths.some((matcher) => matcher.test(specifier));
  const features = shippedPackages('packages');
  const examples = shippedPackages('examples');

  it('finds the packages to check', () => {
    expect(features.map((pkg) => pkg.dir), 'packages other than core').to.not.be.empty;
    expect(isCore(CORE)).to.equal(true);
  });

  it('packages other than core reach core only through @wallet/backend-core and its declared subpaths', () => {
    const violations = coreReferenceViolations(
      features.flatMap((pkg) => pkg.files),
      allowedSubpaths,
    );
    expect(violations, `imports of core outside its package name:\n${violations.join('\n')}`).to.deep.equal([]);
  });

  it('examples reach core only through @wallet/backend-core and its declared subpaths', function () {
    if (examples.length === 0) this.skip();
    const violations = coreReferenceViolations(
      examples.flatMap((pkg) => pkg.files),
      allowedSubpaths,
    );
    expect(violations, `imports of core outside its package name:\n${violations.join('\n')}`).to.deep.equal([]);
  });

  describe('with the feature packages type-checked against core', () => {
    let program: ts.Program;
    let checker: ts.TypeChecker;
    const sourceOf = (file: string) => {
      const source = program.getSourceFile(file);
      if (source === undefined) throw new Error(`${repoPath(file)} is not in the program`);
      return source;
    };

    before(function () {
      this.timeout(120_000);
      program = featureProgram(features.flatMap((pkg) => pkg.files));
      checker = program.getTypeChecker();
    });

    it('every name a feature package imports from core is documented', () => {
      const plugins = documentedNames([PLUGINS_DOC], isCore);
      const undocumented: string[] = [];
      const unshown = new Usage(); // `name — not in docs` → the files importing it
      let imported = 0;
      for (const pkg of features) {
        const names = new Usage();
        for (const file of pkg.files) for (const name of importedCoreNames(sourceOf(file), checker, isCore)) names.add(name, file);
        imported += names.byKey.size;
        // A plugin imports WalletPlugin; a package that does not (relay-admission, a relay hook
        // reusing core's storage) may instead use the docs it cites.
        const isPlugin = names.byKey.has('WalletPlugin');
        const cited = isPlugin ? [] : citedDocs(pkg.dir).filter((doc) => doc !== PLUGINS_DOC);
        if (!isPlugin && cited.length === 0) undocumented.push(`  ${pkg.dir} is not a plugin and cites no docs/*.md for what it uses of core`);
        const documented = isPlugin ? plugins : new Set([...plugins, ...documentedNames(cited, isCore)]);
        const where = [PLUGINS_DOC, ...cited].join(' or ');
        for (const name of names.keys()) if (!documented.has(name)) for (const file of names.byKey.get(name)!) unshown.add(`${name} — not in ${where}`, join(REPO_ROOT, file));
      }
      undocumented.push(...unshown.keys().map((key) => unshown.line(key)));
      expect(imported, 'names imported from core').to.be.greaterThan(0);
      expect(undocumented, `names imported from ${CORE} that the docs do not show (inline code, or declared or imported in a ts block):\n${undocumented.join('\n')}`).to.deep.equal([]);
    });

    it('every property path read off the plugin context exists on PluginContext, and its member is documented', () => {
      const paths = new ContextPaths(program, checker);
      const members = documentedMembers(PLUGINS_DOC);
      const read = new Usage();
      for (const pkg of features) for (const file of pkg.files) for (const path of paths.read(sourceOf(file))) read.add(path, file);
      expect(read.keys(), 'paths read off the plugin context').to.not.be.empty;

      const missing = read.keys().map((path) => (paths.exists(path.split('.')) ? [] : [read.line(path, `ctx.${path} — not on PluginContext (${repoPath(CONTRACT)})`)])).flat();
      const undocumented = new Usage();
      for (const path of read.keys()) {
        const member = path.split('.')[0]!;
        if (!members.has(member)) for (const file of read.byKey.get(path)!) undocumented.add(member, join(REPO_ROOT, file));
      }
      const problems = [...missing, ...undocumented.keys().map((member) => undocumented.line(member, `ctx.${member} — not named as inline code in ${PLUGINS_DOC}`))];
      expect(problems, `plugin context paths used by feature packages:\n${problems.join('\n')}`).to.deep.equal([]);
    });
  });
});
