/**
 * The project's Markdown as the docs checks read it: which files are docs,
 * their fenced blocks (and the `<!-- example: name -->` marker that makes one
 * a runnable example), headings with GitHub's anchor slugs, and links.
 * Plain text scanning of the CommonMark that this repository writes; no
 * Markdown library (none is needed to find fences, headings and links).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** Folders that hold no docs of ours: dependencies, build output, caches. */
const SKIPPED = new Set(['node_modules', 'dist', 'coverage', 'results']);

/**
 * Every Markdown file of the checkout, repository-relative, sorted: README.md,
 * SECURITY.md, bench/, layers/, localstack/, docs/** and any added later.
 * Dot folders (.git, .local, .cache) and dependencies are not ours.
 */
export function markdownFiles(root = repoRoot): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith('.') || SKIPPED.has(entry.name)) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && entry.name.endsWith('.md')) found.push(relative(root, path));
    }
  };
  walk(root);
  return found.sort();
}

/** The files the user manual is made of (the OpenAPI coverage reads these): README.md and docs/**. */
export function manualFiles(root = repoRoot): string[] {
  return markdownFiles(root).filter((file) => file === 'README.md' || file.startsWith('docs/'));
}

export type FencedBlock = {
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The info string's first word (`bash`, `json`…), empty when none. */
  language: string;
  code: string;
  /** The name of the `<!-- example: name -->` line right above the fence. */
  example?: string;
};

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)/;
const MARKER = /^\s*<!--\s*example:\s*([\w.-]+)\s*-->\s*$/;

/** Splits a file into its fenced blocks and the lines outside them (fenced lines blanked, numbering kept). */
export function parseMarkdown(file: string, text: string): { blocks: FencedBlock[]; prose: string[]; strayMarkers: number[] } {
  const lines = text.split('\n');
  const blocks: FencedBlock[] = [];
  const prose: string[] = [];
  const strayMarkers: number[] = [];
  let open: { fence: string; block: FencedBlock; body: string[] } | undefined;
  lines.forEach((line, index) => {
    if (open) {
      const close = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line);
      if (close && close[1]![0] === open.fence[0] && close[1]!.length >= open.fence.length) {
        open.block.code = open.body.join('\n') + '\n';
        blocks.push(open.block);
        open = undefined;
      } else open.body.push(line);
      prose.push('');
      return;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      const marker = MARKER.exec(lines[index - 1] ?? '')?.[1];
      open = { fence: fence[1]!, block: { file, line: index + 1, language: fence[2] ?? '', code: '', ...(marker ? { example: marker } : {}) }, body: [] };
      prose.push('');
      return;
    }
    if (MARKER.test(line) && !FENCE.test(lines[index + 1] ?? '')) strayMarkers.push(index + 1);
    prose.push(line);
  });
  if (open) throw new Error(`${file}:${open.block.line}: a fenced block that is never closed`);
  return { blocks, prose, strayMarkers };
}

/** The file's text, parsed. */
export function readMarkdown(file: string, root = repoRoot) {
  return parseMarkdown(file, readFileSync(join(root, file), 'utf8'));
}

/** Prose with inline code spans blanked out (links and headings are read from what is left). */
export function withoutCodeSpans(line: string): string {
  return line.replace(/(`+)([\s\S]*?[^`])\1(?!`)/g, (span) => ' '.repeat(span.length));
}

/**
 * GitHub's anchor for a heading's text (github-slugger's rules): markup
 * dropped, lower case, every character but letters, marks, digits,
 * connector punctuation (`_`), hyphens and spaces removed, spaces to hyphens.
 */
export function githubSlug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // links and images: their text
    .replace(/<[^>]+>/g, '') // inline HTML
    .replace(/`/g, '');
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a file offers: its headings' slugs (repeats get -1, -2…) and explicit `id`/`name` attributes. */
export function anchorsOf(prose: string[]): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of prose) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
    if (heading) {
      const base = githubSlug(heading[1]!);
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      anchors.add(count === 0 ? base : `${base}-${count}`);
    }
    for (const match of line.matchAll(/<a\s[^>]*?(?:id|name)="([^"]+)"/g)) anchors.add(match[1]!);
  }
  return anchors;
}

export type Link = { line: number; target: string };

/** Inline links and images, `<https://…>` autolinks and reference definitions, outside code. */
export function linksOf(prose: string[]): Link[] {
  const links: Link[] = [];
  prose.forEach((raw, index) => {
    const line = withoutCodeSpans(raw);
    for (const match of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) links.push({ line: index + 1, target: match[1]! });
    for (const match of line.matchAll(/<(https?:\/\/[^>\s]+)>/g)) links.push({ line: index + 1, target: match[1]! });
    const definition = /^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/.exec(line);
    if (definition) links.push({ line: index + 1, target: definition[1]! });
    for (const match of line.matchAll(/<(?:a|img)\s[^>]*?(?:href|src)="([^"]+)"/g)) links.push({ line: index + 1, target: match[1]! });
  });
  return links;
}
