import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from '../harness/index.js';

/** docs/wallet-integration.md as the wallet developer reads it. */
export const integrationDoc = readFileSync(join(REPO_ROOT, 'docs/wallet-integration.md'), 'utf8');

/** The one fenced block of `language` in the doc that contains `marker`, verbatim. */
export function fencedBlock(marker: string, language = ''): string {
  const blocks = [...integrationDoc.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].filter(([, lang, body]) => lang === language && body!.includes(marker));
  if (blocks.length !== 1) throw new Error(`expected one \`\`\`${language} block with ${marker}, found ${blocks.length}`);
  return blocks[0]![2]!;
}

/**
 * Loads a JavaScript snippet of the doc as a module, exactly as printed, exporting `names`. It
 * runs from a temporary directory whose `node_modules` is this repository's, so its bare imports
 * resolve as they would in a wallet's project.
 */
export async function loadSnippet<T>(code: string, names: string[]): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'doc-snippet-'));
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  const file = join(dir, 'snippet.mjs');
  writeFileSync(file, `${code}\nexport { ${names.join(', ')} };\n`);
  return (await import(pathToFileURL(file).href)) as T;
}
