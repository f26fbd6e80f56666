/**
 * The docs' links hold: in every Markdown file of the repository, a relative
 * link names a file or folder that exists, an anchor (`#part` or
 * `file.md#part`) names a heading or `id` of that file by GitHub's slug
 * rules, and an external link is a well-formed http(s) URL. Nothing is
 * fetched: external sites are not checked for being up.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { anchorsOf, githubSlug, linksOf, markdownFiles, parseMarkdown, readMarkdown, repoRoot } from '../../helpers/markdown.js';

/** Problems of one file's links, as `file:line: target: why`; `anchorsIn` gives another file's anchors. */
function linkProblems(file: string, text: string, anchorsIn: (file: string) => Set<string> | undefined, exists: (path: string) => boolean): string[] {
  const { prose } = parseMarkdown(file, text);
  const own = anchorsOf(prose);
  const problems: string[] = [];
  for (const { line, target } of linksOf(prose)) {
    const where = `${file}:${line}: ${target}`;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) {
      if (!/^https?:\/\//i.test(target)) {
        problems.push(`${where}: only http(s) links leave the repository`);
        continue;
      }
      try {
        const url = new URL(target);
        if (!url.hostname.includes('.') && url.hostname !== 'localhost') problems.push(`${where}: no host name`);
      } catch {
        problems.push(`${where}: not a well-formed URL`);
      }
      continue;
    }
    const [path = '', anchor] = target.split('#', 2);
    const resolved = path ? normalize(join(dirname(file), decodeURIComponent(path))) : file;
    if (resolved.startsWith('..')) {
      problems.push(`${where}: leaves the repository`);
      continue;
    }
    if (path && !exists(resolved)) {
      problems.push(`${where}: no file ${resolved}`);
      continue;
    }
    if (anchor === undefined || !resolved.endsWith('.md')) continue;
    const anchors = path ? anchorsIn(resolved) : own;
    if (!anchors?.has(decodeURIComponent(anchor))) problems.push(`${where}: no anchor #${anchor} in ${resolved}`);
  }
  return problems;
}

describe('githubSlug', () => {
  it('makes the anchors GitHub makes', () => {
    assert.equal(githubSlug('Quick start'), 'quick-start');
    assert.equal(githubSlug('Documents to file: PDF/A, PDF/UA, metadata, attachments, e-invoices'), 'documents-to-file-pdfa-pdfua-metadata-attachments-e-invoices');
    assert.equal(githubSlug('waitUntil auto'), 'waituntil-auto');
    assert.equal(githubSlug('`GET /v1/usage` (addition)'), 'get-v1usage-addition');
    assert.equal(githubSlug('Protect, stamp & assemble'), 'protect-stamp--assemble');
    assert.equal(githubSlug('snake_case stays, Ünïcode too'), 'snake_case-stays-ünïcode-too');
  });
});

describe('linkProblems', () => {
  const files = new Set(['README.md', 'docs/api.md', 'studio/screenshot.png']);
  const anchors = new Map([['docs/api.md', new Set(['errors', 'errors-1'])]]);
  const check = (text: string) => linkProblems('README.md', text, (file) => anchors.get(file), (path) => files.has(path));

  it('finds a dead file, a dead anchor, a repeated heading\'s anchor and a malformed URL', () => {
    // Prepare
    const text = [
      '# Title', '## Errors', '## Errors',
      '[a](docs/api.md#errors-1) [b](docs/gone.md) [c](#errors-1) [d](#errors-2) [e](docs/api.md#nope)',
      '![shot](studio/screenshot.png) [f](https://exa%mple.com) [g](ftp://example.com/x) `[h](not/a/link.md)`',
      '```', '[i](in/a/fence.md)', '```',
    ].join('\n');

    // Act
    const problems = check(text);

    // Assess
    assert.deepEqual(problems, [
      'README.md:4: docs/gone.md: no file docs/gone.md',
      'README.md:4: #errors-2: no anchor #errors-2 in README.md',
      'README.md:4: docs/api.md#nope: no anchor #nope in docs/api.md',
      'README.md:5: https://exa%mple.com: not a well-formed URL',
      'README.md:5: ftp://example.com/x: only http(s) links leave the repository',
    ]);
  });

  it('takes explicit ids as anchors', () => {
    assert.deepEqual(check('- <a id="render-steps"></a>**Every step**\n\nSee [steps](#render-steps).'), []);
  });
});

describe('the docs\' links', () => {
  it('lead to files and anchors that exist, and external ones are well-formed http(s)', () => {
    // Prepare
    const files = markdownFiles();
    const anchorCache = new Map<string, Set<string>>();
    const anchorsIn = (file: string) => {
      if (!anchorCache.has(file) && existsSync(join(repoRoot, file))) anchorCache.set(file, anchorsOf(readMarkdown(file).prose));
      return anchorCache.get(file);
    };

    // Act
    const problems = files.flatMap((file) => linkProblems(file, readFileSync(join(repoRoot, file), 'utf8'), anchorsIn, (path) => existsSync(join(repoRoot, path))));

    // Assess
    assert.ok(files.includes('README.md') && files.includes('SECURITY.md'), files.join(', '));
    assert.deepEqual(problems, []);
  });
});
