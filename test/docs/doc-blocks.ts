import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../harness/index.js';

/** One fenced block of a Markdown file, where a reader finds it. */
export interface DocBlock {
  /** Path from the repository root (`docs/plugins.md`). */
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The info string's first word (`ts`, `json`, `sh`; empty when none). */
  lang: string;
  body: string;
  /** The text of a `<!-- snippet: … -->` comment on the line just above the fence, if any. */
  marker?: string;
}

/** README.md and every docs/*.md: the documentation a reader is sent to. */
export function documentationFiles(): string[] {
  const docs = readdirSync(join(REPO_ROOT, 'docs')).filter((name) => name.endsWith('.md')).sort();
  return ['README.md', ...docs.map((name) => `docs/${name}`)];
}

/** Every fenced block of `file` (a path from the repository root), in order. */
export function blocksOf(file: string, text = readFileSync(join(REPO_ROOT, file), 'utf8')): DocBlock[] {
  const lines = text.split('\n');
  const blocks: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,})\s*([^\s`]*)/.exec(lines[i]!);
    if (open === null) continue;
    const fence = open[1]!;
    let end = i + 1;
    while (end < lines.length && !(lines[end]!.startsWith(fence) && lines[end]!.slice(fence.length).trim() === '')) end++;
    if (end === lines.length) throw new Error(`${file}:${i + 1}: a fenced block is never closed`);
    const above = lines.slice(0, i).reverse().find((line) => line.trim() !== '');
    const marker = above === undefined ? undefined : /^<!--\s*snippet:\s*(.*?)\s*-->$/.exec(above.trim())?.[1];
    blocks.push({ file, line: i + 1, lang: open[2]!.toLowerCase(), body: lines.slice(i + 1, end).join('\n'), ...(marker === undefined ? {} : { marker }) });
    i = end;
  }
  return blocks;
}

/** The name a module block gives itself on its first line (`// backend.ts`), if it is one. */
export function moduleName(block: DocBlock): string | undefined {
  const first = block.body.split('\n')[0]!;
  return /^\/\/ [\w-]+\.ts$/.test(first) ? first.slice(3) : undefined;
}

/** The first block of `lang` in `text` (the blocks `blocksOf` found in it) that opens below the line holding `marker`. */
export function blockAfter(blocks: DocBlock[], text: string, marker: string, lang: string): DocBlock | undefined {
  const at = text.indexOf(marker);
  if (at === -1) return undefined;
  const markerLine = text.slice(0, at).split('\n').length;
  return blocks.find((block) => block.lang === lang && block.line > markerLine);
}

/** The `@example` of each JSDoc block of a source file, unstarred, as a `ts` block at the line of its tag. */
export function jsdocExamplesOf(file: string): DocBlock[] {
  const lines = readFileSync(join(REPO_ROOT, file), 'utf8').split('\n');
  const blocks: DocBlock[] = [];
  lines.forEach((line, i) => {
    if (!/^\s*\* @example\s*$/.test(line)) return;
    const body: string[] = [];
    for (let j = i + 1; j < lines.length && !/^\s*\*\/|^\s*\* @/.test(lines[j]!); j++) body.push(lines[j]!.replace(/^\s*\* ?/, ''));
    blocks.push({ file, line: i + 1, lang: 'ts', body: body.join('\n') });
  });
  return blocks;
}
