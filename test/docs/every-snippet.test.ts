import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import ts from 'typescript';
import { buildProgram } from '../../examples/cli/src/index.js';
import { processIo } from '../../examples/cli/src/io.js';
import { REPO_ROOT } from '../harness/index.js';
import { blocksOf, documentationFiles, jsdocExamplesOf, moduleName, type DocBlock } from './doc-blocks.js';

/** Source files whose JSDoc `@example` is a whole program a reader starts from; it is held to the same rule. */
const EXAMPLES_IN_SOURCE = ['packages/core/src/backend.ts'];

/**
 * Every code block of README.md and docs/*.md (and the `@example` of EXAMPLES_IN_SOURCE) compiles and runs (docs/testing.md, "Snippets in
 * the docs"). A block is one of:
 * - a program (no marker): type-checked as a consumer's TypeScript (strict, importing the
 *   workspace packages by name) and run in a child `node` with the secrets and a SQLite
 *   DATABASE_URL in its environment; a server it starts must answer /api/v1/health;
 * - a module: its first line is `// <name>.ts`; the doc's other blocks import it as `./<name>.js`;
 * - `<!-- snippet: mocha -->`: a test file of this repository, run by mocha from test/;
 * - `<!-- snippet: fragment <context> -->`: an excerpt type-checked inside one of CONTEXTS, not run;
 * - one that a dedicated test runs (COVERED).
 */

const CODE = new Set(['ts', 'typescript', 'js', 'javascript', 'mjs']);
const RUN_TIMEOUT_MS = 60_000;
const run = promisify(execFile);

/** Blocks a dedicated test already runs: that test must quote `contains` to find the block. */
const COVERED: Array<{ file: string; contains: string; by: string }> = [
  { file: 'docs/wallet-integration.md', contains: 'async function altchaSolution', by: 'test/docs/altcha-snippets.test.ts' },
  { file: 'docs/wallet-integration.md', contains: 'async function solveAltcha', by: 'test/docs/altcha-snippets.test.ts' },
  { file: 'docs/tips.md', contains: 'function sealPublic', by: 'test/docs/tips-envelope.test.ts' },
  { file: 'docs/wallet-integration.md', contains: 'async function loginWithBtc', by: 'test/docs/client-snippets.test.ts' },
  { file: 'docs/wallet-integration.md', contains: 'async function proveThenLogIn', by: 'test/docs/client-snippets.test.ts' },
];

/** Type names of @wallet/backend-core an excerpt of its declarations may use (`fragment types`): those it does not declare itself are imported. */
const CORE_TYPES = ['Dialect', 'ErrorCatalogue', 'ErrorSpec', 'Executor', 'Knex', 'PluginContext', 'PluginMigration', 'PublicSettingsInput', 'Settings', 'Where'];

/** What an excerpt may take as given. Each is prepended to the excerpt, which is then type-checked. */
const CONTEXTS: Record<string, string | ((body: string) => string)> = {
  /** Declarations as the package states them. */
  types: (body) => {
    const declared = new Set([...body.matchAll(/^\s*(?:interface|type)\s+(\w+)/gm)].map((match) => match[1]));
    return `import type { ${CORE_TYPES.filter((name) => !declared.has(name)).join(', ')} } from '@wallet/backend-core';\n`;
  },
  /** Complete except for being a module that is only compiled (it throws on purpose). */
  bare: 'export {};\n',
  /** A relay's message loop (docs/relay-operators.md), in JavaScript. */
  'relay-loop': `/** @type {import('@wallet/relay-admission').NostrEvent} */
const event = JSON.parse(process.argv[2] ?? '{}');
/** @param {unknown[]} message */
const sendToClient = (message) => console.log(message);
`,
  /** The hook made as in the block before it (docs/relay-operators.md), for the `admitNow` excerpt. */
  'relay-loop-now': `import { createRelayAdmission } from '@wallet/relay-admission';
const admission = createRelayAdmission({ databaseUrl: process.env.DATABASE_URL });
/** @type {import('@wallet/relay-admission').NostrEvent} */
const event = JSON.parse(process.argv[2] ?? '{}');
`,
  /** A whole program that needs a Redis server (docs/embedding.md, "Rate-limit store"): checked, not run. */
  'embedding-redis': 'export {};\n',
  /** Code of the host next to the backend module of docs/embedding.md, with its own values. */
  'embedding-db': `import { backend } from './backend.js';
declare const since: Date, id: string;
`,
  /** An admin client (docs/admin.md) holding its admin key. */
  'admin-client': 'declare const secretKey: Uint8Array;\n',
  /** Inside `setup(ctx)` of the notes plugin of docs/plugins.md (its module is `notes.ts`). */
  'notes-setup': `
import * as v from 'valibot';
import { createWalletBackend, defineErrors, defineRoute, nextAfter, pageQuery, type Knex, type PageCursor, type PluginContext, type SettingsInput, type UserAuth, type WalletPlugin } from '@wallet/backend-core';
import { notesPlugin } from './notes.js';
// The catalogue as its section ("Errors") declares it: notes.ts's, plus the invite code of the excerpts.
const notesErrors = defineErrors({
  note_not_found: { status: 404, message: 'Note not found.' },
  note_invite_invalid: { status: 400, message: 'The invite is invalid, expired or already used.' },
});
declare const ctx: PluginContext;
declare const auth: UserAuth, body: { nonce: string };
declare const trx: Knex.Transaction;
declare const userId: string, noteId: string, tipId: string, code: string, reason: string, clientIp: string, invitationCode: string, adminPubkey: string, nodeUrl: string;
declare const retentionDays: number, maxLength: number, DAY_MS: number;
declare const settings: SettingsInput;
declare const noteResponse: v.GenericSchema<{ id: string; text: string; created_at: string }>;
interface StoredNote { id: string; user_id: string; text: string; created_at: unknown }
interface StoredInvite { code_hash: string; expires_at: unknown }
declare function toNote(row: StoredNote): { id: string; text: string; created_at: string };
declare function forceClawback(trx: Knex.Transaction, tipId: string): Promise<void>;
export {};
`,
};

/** Secrets and a database for a snippet's `process.env`, as an operator's environment gives them. */
function snippetEnv(dir: string, resultFile: string): NodeJS.ProcessEnv {
  const { NODE_OPTIONS: _options, ...env } = process.env;
  const secret = (label: string) => `snippet-${label}-secret-0123456789abcdef0123456789`;
  return {
    ...env,
    PUBLIC_API_URL: 'https://wallet.example.com',
    DATABASE_URL: `sqlite:${join(dir, 'wallet.db')}`,
    // docs/embedding.md, "Two backends in one process".
    EU_DATABASE_URL: `sqlite:${join(dir, 'eu.db')}`,
    US_DATABASE_URL: `sqlite:${join(dir, 'us.db')}`,
    JWT_SECRET: secret('jwt'),
    PEPPER_SECRET: secret('pepper'),
    IP_HASH_SALT: secret('ip-salt'),
    ADMIN_KEY_INTEGRITY_SECRET: secret('admin-integrity'),
    ADMIN_SESSION_SECRET: secret('admin-session'),
    SNIPPET_RESULT: resultFile,
  };
}

type Kind = 'program' | 'module' | 'mocha' | 'fragment' | 'covered';

interface Prepared {
  block: DocBlock;
  kind: Kind;
  /** The file written for it (none for a covered block). */
  path?: string;
  /** Lines put in front of the block in `path`. */
  offset: number;
}

const where = (block: DocBlock) => `${block.file}:${block.line}`;

/** A doc's path as one file-name part (`docs/plugins.md` → `docs_plugins_md`). */
const flat = (file: string) => file.replace(/[/.]/g, '_');

/** The last `lines` lines of what a failed child printed. */
function outputTail(failed: { stdout?: string; stderr?: string }, lines: number): string {
  return `${failed.stdout ?? ''}${failed.stderr ?? ''}`.split('\n').slice(-lines).join('\n');
}

function kindOf(block: DocBlock): Kind {
  if (COVERED.some((c) => c.file === block.file && block.body.includes(c.contains))) return 'covered';
  if (block.marker === 'mocha') return 'mocha';
  if (block.marker?.startsWith('fragment ')) return 'fragment';
  if (block.marker !== undefined) throw new Error(`${where(block)}: unknown snippet marker "${block.marker}"`);
  if (moduleName(block) !== undefined) return 'module';
  return 'program';
}

const root = mkdtempSync(join(tmpdir(), 'doc-every-snippet-'));
/** Mocha snippets import the harness relatively (`../harness/index.js`), so they live under test/ while they run. */
const mochaRoot = join(REPO_ROOT, 'test', `.snippets-${process.pid}`);

function prepare(): Prepared[] {
  const prepared: Prepared[] = [];
  for (const file of [...documentationFiles(), ...EXAMPLES_IN_SOURCE]) {
    const blocks = file.endsWith('.md') ? blocksOf(file).filter((block) => CODE.has(block.lang)) : jsdocExamplesOf(file);
    if (blocks.length === 0) continue;
    const dir = join(root, flat(file));
    mkdirSync(dir);
    symlinkSync(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
    const kinds = new Map(blocks.map((block) => [block, kindOf(block)]));
    const modules = blocks.filter((block) => kinds.get(block) === 'module');
    for (const block of blocks) {
      const kind = kinds.get(block)!;
      const js = !block.lang.startsWith('t');
      if (kind === 'covered') {
        prepared.push({ block, kind, offset: 0 });
        continue;
      }
      if (kind === 'module') {
        const path = join(dir, moduleName(block)!);
        writeFileSync(path, block.body);
        prepared.push({ block, kind, path, offset: 0 });
        continue;
      }
      if (kind === 'mocha') {
        mkdirSync(mochaRoot, { recursive: true });
        for (const module of modules) writeFileSync(join(mochaRoot, moduleName(module)!), module.body);
        const path = join(mochaRoot, `${flat(file)}_${block.line}.test.ts`);
        writeFileSync(path, block.body);
        prepared.push({ block, kind, path, offset: 0 });
        continue;
      }
      const given = kind === 'fragment' ? CONTEXTS[block.marker!.slice('fragment '.length)] : '';
      const context = typeof given === 'function' ? given(block.body) : given;
      if (context === undefined) throw new Error(`${where(block)}: no snippet context "${block.marker}"`);
      const path = join(dir, `${kind}-${block.line}.${js ? 'mjs' : 'ts'}`);
      writeFileSync(path, `${context}${block.body}\n`);
      prepared.push({ block, kind, path, offset: context.split('\n').length - 1 });
    }
  }
  return prepared;
}

/** Every snippet's type errors, by snippet file: one program, so the packages are checked once. */
function typeErrors(files: string[]): Map<string, string[]> {
  const program = ts.createProgram(files, {
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2023.d.ts'],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    customConditions: ['wallet-source'],
    strict: true,
    noUncheckedIndexedAccess: true,
    esModuleInterop: true,
    skipLibCheck: true,
    allowJs: true,
    checkJs: true,
    noEmit: true,
    types: ['node', 'mocha'],
    typeRoots: [join(REPO_ROOT, 'node_modules/@types')],
  });
  const errors = new Map<string, string[]>();
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const file = diagnostic.file?.fileName;
    if (file === undefined || !files.includes(file)) continue;
    const { line } = diagnostic.file!.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
    errors.set(file, [...(errors.get(file) ?? []), `${line + 1}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`]);
  }
  return errors;
}

/**
 * Where a program mounts backends: the path of each `.use('/prefix', …)` of a backend's handler
 * (docs/embedding.md mounts two under /eu and /us), or the root. Each must answer its health route.
 */
function mountPrefixes(body: string): string[] {
  const prefixes = [...body.matchAll(/\.use\(\s*'(\/[^']*)',\s*\w+\.callback\(\)/g)].map((match) => match[1]!);
  return prefixes.length > 0 ? prefixes : [''];
}

async function runProgram(path: string, body: string): Promise<void> {
  const resultFile = `${path}.result.json`;
  const dir = join(path, '..');
  let output = '';
  try {
    const child = await run(process.execPath, ['--import', 'tsx', '--conditions=wallet-source', join(REPO_ROOT, 'test/docs/snippet-runtime.ts'), path], {
      cwd: dir,
      env: { ...snippetEnv(dir, resultFile), SNIPPET_PROBE_PREFIXES: JSON.stringify(mountPrefixes(body)) },
      timeout: RUN_TIMEOUT_MS,
      maxBuffer: 16 * 1024 * 1024,
    });
    output = child.stdout + child.stderr;
  } catch (err) {
    const failed = err as Error & { stdout?: string; stderr?: string; killed?: boolean };
    throw new Error(`${failed.killed === true ? `did not finish within ${RUN_TIMEOUT_MS} ms` : 'failed'}:\n${outputTail(failed, 25)}`);
  }
  const { probes } = JSON.parse(readFileSync(resultFile, 'utf8')) as { probes: Array<{ path: string; status: number }> };
  if (/\.listen\(|start\(\{\s*port/.test(body) && !body.includes('.close()')) expect(probes, 'the snippet listens, so a server must be left to probe').to.not.deep.equal([]);
  for (const probe of probes) expect(probe.status, `a server the snippet left listening answered ${probe.path} with ${probe.status}\n${output.slice(-2000)}`).to.equal(200);
}

describe('every code block of README.md and docs/*.md compiles and runs', () => {
  let prepared: Prepared[] = [];
  let errors = new Map<string, string[]>();
  // The blocks are written out while mocha loads the file (one test each); a throw there skips
  // `after`, so the folders are removed here too.
  try {
    prepared = prepare();
  } catch (err) {
    rmSync(root, { recursive: true, force: true });
    rmSync(mochaRoot, { recursive: true, force: true });
    throw err;
  }

  before(function () {
    this.timeout(180_000);
    errors = typeErrors(prepared.flatMap((p) => (p.path === undefined ? [] : [p.path])));
  });

  after(() => {
    rmSync(root, { recursive: true, force: true });
    rmSync(mochaRoot, { recursive: true, force: true });
  });

  it('finds the blocks (README.md, docs/plugins.md, docs/embedding.md at least)', () => {
    const files = new Set(prepared.map((p) => p.block.file));
    for (const file of ['README.md', 'docs/plugins.md', 'docs/embedding.md', ...EXAMPLES_IN_SOURCE]) expect(files, file).to.include(file);
  });

  it('each covered block is quoted by the test named for it', () => {
    for (const { file, contains, by } of COVERED) {
      expect(prepared.some((p) => p.kind === 'covered' && p.block.file === file && p.block.body.includes(contains)), `${file}: ${contains}`).to.equal(true);
      expect(readFileSync(join(REPO_ROOT, by), 'utf8'), by).to.include(contains);
    }
  });

  it('every json block parses', () => {
    const broken = documentationFiles().flatMap((file) =>
      blocksOf(file)
        .filter((block) => block.lang === 'json')
        .flatMap((block) => {
          try {
            JSON.parse(block.body);
            return [];
          } catch (err) {
            return [`${where(block)}: ${(err as Error).message}`];
          }
        }),
    );
    expect(broken, broken.join('\n')).to.deep.equal([]);
  });

  it('every CLI command a sh block runs exists in the CLI', () => {
    const program = buildProgram(processIo, () => undefined);
    const commands = new Map(program.commands.map((command) => [command.name(), new Set(command.commands.map((sub) => sub.name()))]));
    // A command with subcommands may also run on its own (`backup` and `backup verify`); commander keeps that as a private field.
    const runsAlone = new Set(program.commands.filter((command) => (command as unknown as { _actionHandler: unknown })._actionHandler != null).map((command) => command.name()));
    expect(commands.get('audit'), 'the CLI as read here').to.include('verify');
    const invocation = /(?:^|\$ |&& |; )(?:sudo (?:-u \S+ )?)?(?:wallet-backend|npm run (?:--silent )?cli(?::prod)? --|node examples\/cli\/dist\/main\.js) +([a-z][\w-]*)(?: +([a-z][\w-]*))?/gm;
    const invocations = documentationFiles().flatMap((file) =>
      blocksOf(file)
        .filter((block) => ['sh', 'shell', 'bash', 'console'].includes(block.lang))
        .flatMap((block) => [...block.body.matchAll(invocation)].map(([text, name, sub]) => ({ block, text: text.trim(), name: name!, sub }))),
    );
    expect(invocations.length, 'the docs run the CLI in sh blocks').to.be.greaterThan(5);
    const unknown = invocations.flatMap(({ block, text, name, sub }) => {
      const subs = commands.get(name);
      if (subs === undefined) return [`${where(block)}: ${text}: no command "${name}"`];
      if (subs.size > 0 && !subs.has(sub ?? '') && !runsAlone.has(name)) return [`${where(block)}: ${text}: "${name}" has no subcommand "${sub ?? ''}"`];
      return [];
    });
    expect(unknown, unknown.join('\n')).to.deep.equal([]);
  });

  for (const p of prepared) {
    if (p.kind === 'covered') continue;
    it(`${where(p.block)} (${p.block.lang}, ${p.kind}) compiles${p.kind === 'program' || p.kind === 'mocha' ? ' and runs' : ''}`, async function () {
      this.timeout(RUN_TIMEOUT_MS + 30_000);
      const found = (errors.get(p.path!) ?? []).map((error) => {
        const [line, ...message] = error.split(': ');
        return `${p.block.file}:${p.block.line + Number(line) - p.offset}: ${message.join(': ')}`;
      });
      expect(found, `type errors in the block at ${where(p.block)}:\n${found.join('\n')}\n`).to.deep.equal([]);
      if (p.kind === 'program') await runProgram(p.path!, p.block.body);
      if (p.kind === 'mocha') {
        const mocha = join(REPO_ROOT, 'node_modules/mocha/bin/mocha.js');
        try {
          await run(process.execPath, [mocha, relative(REPO_ROOT, p.path!)], { cwd: REPO_ROOT, timeout: RUN_TIMEOUT_MS * 2, maxBuffer: 16 * 1024 * 1024 });
        } catch (err) {
          const failed = err as Error & { stdout?: string; stderr?: string };
          throw new Error(`mocha failed on the block at ${where(p.block)}:\n${outputTail(failed, 40)}`);
        }
      }
    });
  }
});
