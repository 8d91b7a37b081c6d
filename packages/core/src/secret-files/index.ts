import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';

/** An environment: variable names to values (`process.env`'s shape). */
type Env = Record<string, string | undefined>;

/** A secret file larger than this is a mistake (a wrong path), not a secret. */
const MAX_SECRET_FILE_BYTES = 64 * 1024;

const READ_FAILURES: Record<string, string> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'is a directory',
  ENOTDIR: 'a parent is not a directory',
  ELOOP: 'too many symbolic links',
};

export interface SecretFiles {
  /** The environment with each `NAME_FILE` read into NAME; a NAME whose file failed is left unset. */
  env: Env;
  /** One line per refused `NAME_FILE`, naming the variable and the path, never the content. */
  problems: string[];
  /** The variables (NAME, without `_FILE`) whose file was refused. */
  failed: Set<string>;
}

/**
 * The `NAME_FILE` rule, for each of `names` (Docker and Kubernetes secrets, systemd
 * credentials): the file's content with trailing line breaks removed becomes NAME. NAME and
 * NAME_FILE both set, a file that cannot be read, is not a regular file, is empty or larger
 * than 64 KiB: each is a problem, and the caller refuses to start. Relative paths are resolved
 * from the working directory. The reference server and the relay admission executable both
 * read their secrets through it.
 */
export function readSecretFiles(env: Env, names: readonly string[]): SecretFiles {
  const resolved: Env = { ...env };
  const problems: string[] = [];
  const failed = new Set<string>();
  for (const name of names) {
    const fileVar = `${name}_FILE`;
    const path = env[fileVar];
    if (path === undefined || path === '') continue;
    const refuse = (why: string) => {
      problems.push(`${fileVar}: ${why}`);
      failed.add(name);
      delete resolved[name];
    };
    if (env[name] !== undefined && env[name] !== '') {
      refuse(`${name} and ${fileVar} are both set; set only one of them`);
      continue;
    }
    const absolute = resolve(path);
    let content: string;
    try {
      const stat = statSync(absolute);
      if (!stat.isFile()) {
        refuse(`cannot read ${absolute}: not a regular file`);
        continue;
      }
      if (stat.size > MAX_SECRET_FILE_BYTES) {
        refuse(`${absolute} is larger than ${MAX_SECRET_FILE_BYTES} bytes; is it the right file?`);
        continue;
      }
      content = readFileSync(absolute, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'error';
      refuse(`cannot read ${absolute} (${READ_FAILURES[code] ?? code})`);
      continue;
    }
    const value = content.replace(/[\r\n]+$/, '');
    if (value === '') {
      refuse(`${absolute} is empty`);
      continue;
    }
    resolved[name] = value;
  }
  return { env: resolved, problems, failed };
}
