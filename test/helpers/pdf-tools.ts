import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Debian's qpdf and poppler-utils, the independent tools the finishing tests
 * prove their PDFs with (`.ci/run` installs them). Each call writes the PDF
 * to a temporary folder and answers the tool's exit status and output.
 */
export type ToolRun = { status: number; stdout: string; stderr: string };

function withFile<T>(pdf: Uint8Array, use: (path: string, dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'pdf-tools-'));
  try {
    const path = join(dir, 'in.pdf');
    writeFileSync(path, pdf);
    return use(path, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function run(command: string, args: string[]): ToolRun {
  const result = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.error) throw new Error(`${command} could not run (apt-get install -y qpdf poppler-utils): ${result.error.message}`);
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/** `qpdf [args] <pdf>`: e.g. `--show-encryption`, `--check`, `--password=…`. */
export function qpdf(pdf: Uint8Array, args: string[]): ToolRun {
  return withFile(pdf, (path) => run('qpdf', [...args, path]));
}

/** `qpdf --json` of the document (objects, outlines, pages), parsed. */
export function qpdfJson(pdf: Uint8Array, args: string[] = []): Record<string, unknown> {
  const out = qpdf(pdf, ['--json', ...args]);
  if (out.status !== 0 && out.status !== 3) throw new Error(`qpdf --json failed: ${out.stderr}`);
  return JSON.parse(out.stdout) as Record<string, unknown>;
}

/** `pdfimages -list <pdf>`: one line per image drawn (page, kind, width, height, colour, encoding…). */
export function pdfimages(pdf: Uint8Array): string {
  return withFile(pdf, (path) => run('pdfimages', ['-list', path])).stdout;
}

/** `pdfinfo [args] <pdf>`. */
export function pdfinfo(pdf: Uint8Array, args: string[] = []): ToolRun {
  return withFile(pdf, (path) => run('pdfinfo', [...args, path]));
}

/** Text of each page by `pdftotext` (one call per page, so pages never run together). */
export function pdftotextPages(pdf: Uint8Array, pageCount: number, args: string[] = []): string[] {
  return withFile(pdf, (path) =>
    Array.from({ length: pageCount }, (_, i) => {
      const out = run('pdftotext', [...args, '-f', String(i + 1), '-l', String(i + 1), '-enc', 'UTF-8', path, '-']);
      if (out.status !== 0) throw new Error(`pdftotext failed: ${out.stderr}`);
      return out.stdout;
    }),
  );
}

/** `pdftotext` of the whole document, or the failed run. */
export function pdftotext(pdf: Uint8Array, args: string[] = []): ToolRun {
  return withFile(pdf, (path) => run('pdftotext', [...args, '-enc', 'UTF-8', path, '-']));
}

/** PNG of each page by `pdftoppm` at `dpi`. */
export function pdftoppm(pdf: Uint8Array, dpi = 72, args: string[] = []): Buffer[] {
  return withFile(pdf, (path, dir) => {
    const out = run('pdftoppm', [...args, '-r', String(dpi), '-png', path, join(dir, 'page')]);
    if (out.status !== 0) throw new Error(`pdftoppm failed: ${out.stderr}`);
    return readdirSync(dir)
      .filter((name) => name.startsWith('page') && name.endsWith('.png'))
      .sort()
      .map((name) => readFileSync(join(dir, name)));
  });
}

/** Page count as pdfinfo reads it. */
export function pageCountOf(pdf: Uint8Array, args: string[] = []): number {
  const info = pdfinfo(pdf, args);
  const match = /^Pages:\s+(\d+)/m.exec(info.stdout);
  if (!match) throw new Error(`pdfinfo read no page count: ${info.stderr}`);
  return Number(match[1]);
}

/** The raw (still encoded) bytes of each content stream of each page, read by qpdf. */
export function pageContentStreams(pdf: Uint8Array, args: string[] = []): Buffer[][] {
  return withFile(pdf, (path) => {
    const pages = run('qpdf', [...args, '--show-pages', path]);
    if (pages.status !== 0) throw new Error(`qpdf --show-pages failed: ${pages.stderr}`);
    const result: Buffer[][] = [];
    for (const line of pages.stdout.split('\n')) {
      if (/^page \d+:/.test(line)) result.push([]);
      const content = /^\s+(\d+) (\d+) R$/.exec(line);
      if (content && result.length > 0) {
        const raw = spawnSync('qpdf', [...args, `--show-object=${content[1]},${content[2]}`, '--raw-stream-data', path], { maxBuffer: 64 * 1024 * 1024 });
        (result[result.length - 1] as Buffer[]).push(raw.stdout);
      }
    }
    return result;
  });
}

/** One outline entry as qpdf's JSON gives it. */
export type OutlineItem = { title: string; destpageposfrom1: number | null; kids: OutlineItem[] };

/** The document's outline, read by qpdf. */
export function outlineOf(pdf: Uint8Array, args: string[] = []): OutlineItem[] {
  return (qpdfJson(pdf, [...args, '--json-key=outlines']).outlines ?? []) as OutlineItem[];
}

/** Names of the fonts `pdffonts` lists as embedded (subset prefix removed). */
export function embeddedFonts(pdf: Uint8Array): string[] {
  const out = withFile(pdf, (path) => run('pdffonts', [path]));
  if (out.status !== 0) throw new Error(`pdffonts failed: ${out.stderr}`);
  // Columns from the end: object ID (two numbers), uni, sub, emb.
  return out.stdout
    .split('\n')
    .slice(2)
    .map((line) => line.trim().split(/\s+/))
    .filter((tokens) => tokens.length >= 6 && tokens.at(-5) === 'yes')
    .map((tokens) => (tokens[0] ?? '').replace(/^[A-Z]{6}\+/, ''));
}
