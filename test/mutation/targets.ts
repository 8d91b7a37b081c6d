/**
 * The security-critical files `npm run test:mutation` mutates (issue 13 item 10), each with the
 * spec files that exercise it. Stryker loads only those specs and, with per-test coverage, runs
 * only the tests that reach each mutant. A test outside the list that would kill a mutant does
 * not count: when a new test file covers one of these files, add it here.
 */
export interface Target {
  /** A glob of source files, relative to the repository root. */
  readonly mutate: string;
  /** Globs of the spec files that exercise them. */
  readonly spec: readonly string[];
}

const IDENTITY_SPECS = ['test/core/identity/*.test.ts'];
const SESSION_SPECS = ['test/core/http/sessions.test.ts', 'test/core/http/session-*.test.ts', 'test/core/auth/*.test.ts'];
const SIGNED_ACTION_SPECS = ['test/core/plugin/signed-action*.test.ts'];
/** Route declarations and schemas also feed the published OpenAPI document (summaries, statuses, shapes). */
const OPENAPI_SPECS = ['test/core/http/openapi-snapshot.test.ts'];
/**
 * The erasure specs that reach its code. Left out: config.test.ts (it boots the reference server,
 * whose BootError class is another module copy inside the mutation sandbox, so its instanceof
 * check fails the initial run) and oracle.test.ts (timing runs, minutes under Stryker).
 */
const ERASURE_SPECS = ['audit-tail', 'export-plugins', 'export', 'flow', 'freeze', 'integrity', 'refusals', 'request-race', 'service-mutants', 'sweeper'].map((name) => `test/erasure/${name}.test.ts`);

export const TARGETS: readonly Target[] = [
  // A file named before its folder's glob takes these specs instead (the first match wins).
  { mutate: 'packages/core/src/http/route-table.ts', spec: ['test/core/http/route-table.test.ts'] },
  { mutate: 'packages/core/src/directory/nip05-cache.ts', spec: ['test/core/directory/nip05-cache.test.ts'] },
  { mutate: 'packages/core/src/crypto/integrity.ts', spec: ['test/core/crypto/*.test.ts', 'test/core/admin/*.test.ts'] },
  { mutate: 'packages/core/src/auth/routes.ts', spec: [...SESSION_SPECS, ...OPENAPI_SPECS] },
  { mutate: 'packages/core/src/auth/schemas.ts', spec: [...SESSION_SPECS, ...OPENAPI_SPECS] },
  { mutate: 'packages/core/src/identity/routes.ts', spec: [...IDENTITY_SPECS, ...OPENAPI_SPECS] },
  { mutate: 'packages/core/src/identity/schemas.ts', spec: [...IDENTITY_SPECS, ...OPENAPI_SPECS] },
  { mutate: 'packages/core/src/storage/conditional.ts', spec: ['test/core/storage/primitives.test.ts', 'test/core/storage/consume-*.test.ts', 'test/core/challenges/*.test.ts'] },
  // freeze: the session guards (erasure's freeze) on every login path and refresh.
  { mutate: 'packages/core/src/auth/*.ts', spec: [...SESSION_SPECS, ...SIGNED_ACTION_SPECS, ...IDENTITY_SPECS, 'test/erasure/freeze.test.ts'] },
  { mutate: 'packages/core/src/crypto/*.ts', spec: ['test/core/crypto/*.test.ts', ...SIGNED_ACTION_SPECS, ...IDENTITY_SPECS] },
  // The login services decide which account a key resolves to: the key-proof specs of the directory reach them too (issue 29 item 11).
  { mutate: 'packages/core/src/identity/*-service.ts', spec: [...IDENTITY_SPECS, ...SESSION_SPECS, 'test/core/directory/key-proofs.test.ts'] },
  { mutate: 'packages/core/src/identity/*.ts', spec: [...IDENTITY_SPECS, ...SESSION_SPECS] },
  { mutate: 'packages/core/src/admin/keys.ts', spec: ['test/core/admin/*.test.ts'] },
  { mutate: 'packages/core/src/admin/audit.ts', spec: ['test/core/admin/*.test.ts', ...ERASURE_SPECS] },
  { mutate: 'packages/core/src/admin/latch.ts', spec: ['test/core/admin/*.test.ts'] },
  { mutate: 'packages/grin-relay/src/service.ts', spec: ['test/grin-relay/*.test.ts'] },
  { mutate: 'packages/tips/src/service.ts', spec: ['test/tips/*.test.ts'] },
  { mutate: 'packages/tips/src/workers.ts', spec: ['test/tips/*.test.ts'] },
  // The one "has the sweep confirmed" rule: clawback and the sweep reconciler both decide by it.
  { mutate: 'packages/tips/src/sweep.ts', spec: ['test/tips/*.test.ts'] },
  // The account's own reads and writes: /auth/me (findInfo), premium's period, erasure's export and removal.
  { mutate: 'packages/core/src/users/repo.ts', spec: ['test/core/users/*.test.ts', 'test/core/http/sessions.test.ts', 'test/core/auth/auth-routes.test.ts', ...ERASURE_SPECS, 'test/premium/*.test.ts'] },
  { mutate: 'packages/erasure/src/service.ts', spec: ERASURE_SPECS },
  { mutate: 'packages/premium/src/service.ts', spec: ['test/premium/*.test.ts'] },
  // The strfry and gRPC adapter tests spawn processes (slow); the hook's own specs reach these files.
  { mutate: 'packages/relay-admission/src/policy.ts', spec: ['test/relay-admission/hook.test.ts', 'test/relay-admission/mutants.test.ts'] },
  { mutate: 'packages/relay-admission/src/membership.ts', spec: ['test/relay-admission/hook.test.ts', 'test/relay-admission/mutants.test.ts'] },
  { mutate: 'packages/relay-admission/src/admission.ts', spec: ['test/relay-admission/hook.test.ts', 'test/relay-admission/mutants.test.ts'] },
  // Key ownership (issue 29 item 11): a skipped proof check for one asset survived the whole suite.
  // These decide whether a key is proven, whose proof it is, and which stored value a key is.
  ...['directory-service', 'key-repo', 'key-proof', 'key-forms', 'receiving-keys', 'usernames'].map((name) => ({
    mutate: `packages/core/src/directory/${name}.ts`,
    // extension*: the login moves the BTC key's proof, and a rotation reads the key on file.
    spec: ['test/core/directory/*.test.ts', 'test/core/identity/key-ownership.test.ts', 'test/core/identity/extension*.test.ts', 'test/core/identity/website*.test.ts', 'test/docs/key-proof.test.ts'],
  })),
];

/** A concern's index.ts only re-exports: nothing to mutate. */
export const SKIPPED = [/\/index\.ts$/];
