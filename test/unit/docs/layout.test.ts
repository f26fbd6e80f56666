/**
 * The docs' shape (issue 38): README.md is a landing page that fits on a few
 * screens, and every page of the manual (docs/*.md) opens with a table of
 * contents: before its first `##` heading, links to every `##` heading of
 * its own, so a reader sees the page's subjects before scrolling.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { githubSlug, linksOf, markdownFiles, parseMarkdown, repoRoot } from '../../helpers/markdown.js';

const README_MAX_LINES = 260;

/** What a page's table of contents lacks: `file: why`, one per missing `##` heading (none when it is whole). */
function tocProblems(file: string, text: string): string[] {
  const { prose } = parseMarkdown(file, text);
  const seen = new Map<string, number>();
  const sections: Array<{ index: number; anchor: string }> = [];
  prose.forEach((line, index) => {
    const heading = /^ {0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
    if (!heading) return;
    const base = githubSlug(heading[2]!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    if (heading[1] === '##') sections.push({ index, anchor: count === 0 ? base : `${base}-${count}` });
  });
  if (!sections.length) return [`${file}: no ## heading for a table of contents to list`];
  const top = prose.slice(0, sections[0]!.index);
  const listed = new Set(linksOf(top).filter(({ target }) => target.startsWith('#')).map(({ target }) => decodeURIComponent(target.slice(1))));
  return sections.filter(({ anchor }) => !listed.has(anchor)).map(({ anchor }) => `${file}: the contents at the top do not link #${anchor}`);
}

describe('tocProblems', () => {
  it('finds a ## heading the contents leave out, a repeated heading by its -1 anchor, and a page with no ## heading', () => {
    // Prepare
    const page = [
      '# Title', '', '- [One](#one)', '- [Two](#two)', '',
      '## One', '```bash', '## not a heading', '```', '## Two', '### Deeper', '## Three', '## One',
    ].join('\n');

    // Act
    const problems = tocProblems('docs/x.md', page);

    // Assess
    assert.deepEqual(problems, ['docs/x.md: the contents at the top do not link #three', 'docs/x.md: the contents at the top do not link #one-1']);
    assert.deepEqual(tocProblems('docs/y.md', '# Title\n\nText only.\n'), ['docs/y.md: no ## heading for a table of contents to list']);
  });

  it('does not count links below the first ## heading as the contents', () => {
    assert.deepEqual(tocProblems('docs/z.md', '# T\n\n- [A](#a)\n\n## A\n\nSee [B](#b).\n\n## B\n'), ['docs/z.md: the contents at the top do not link #b']);
  });
});

describe('the docs\' layout', () => {
  it(`keeps README.md a landing page of at most ${README_MAX_LINES} lines`, () => {
    const lines = readFileSync(join(repoRoot, 'README.md'), 'utf8').replace(/\n$/, '').split('\n').length;
    assert.ok(lines <= README_MAX_LINES, `README.md has ${lines} lines: move the detail into docs/`);
  });

  it('opens every page of docs/ with a table of contents of its ## headings', () => {
    // Prepare
    const pages = markdownFiles().filter((file) => /^docs\/[^/]+\.md$/.test(file));

    // Act
    const problems = pages.flatMap((file) => tocProblems(file, readFileSync(join(repoRoot, file), 'utf8')));

    // Assess
    assert.ok(pages.length >= 10, pages.join(', '));
    assert.deepEqual(problems, []);
  });
});
