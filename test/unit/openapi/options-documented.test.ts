/**
 * Nothing the API takes goes undocumented: every option of the OpenAPI
 * document's request bodies (every property path, e.g.
 * `pdf.watermark.opacity`, `page.waitForSelector.options.visible`) is named
 * in the manual — README.md and docs/**.md, so that moving text from the
 * README into docs/ keeps the check. "Named" is read where a reader looks
 * for it: the option's name in code (a `code span` or a fenced block) in a
 * section (heading to heading) that also names its parent object in code,
 * so `opacity` must stand beside `watermark`, not anywhere. And where the
 * document gives a text or number default, a section naming the option says
 * that value (a value an enum's list shows, `letter` among the formats,
 * passes by being listed: the check finds a default gone, not every wrong one).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildOpenApiDocument } from '../../../lib/openapi/document.js';
import { manualFiles, parseMarkdown, readMarkdown, withoutCodeSpans } from '../../helpers/markdown.js';

import { requestOptionPaths, sectionsOf, undocumented, unstatedDefaults, type Doc } from '../../helpers/manual-options.js';

describe('OpenAPI request options in the manual', () => {
  it('lists the property paths of the request bodies, nested objects, arrays and shared components included', () => {
    // Act
    const paths = requestOptionPaths(buildOpenApiDocument() as unknown as Doc).map(({ path }) => path.join('.'));

    // Assess
    for (const expected of ['page.url', 'page.waitForSelector.options.visible', 'pdf.watermark.opacity', 'pdf.protection.permissions.print', 'parts.templateId', 'webhook.receiveType', 'screenshot.viewport.deviceScaleFactor']) {
      assert.ok(paths.includes(expected), expected);
    }
  });

  it('finds an option only beside its parent, in code', () => {
    // Prepare
    const sections = sectionsOf([
      parseMarkdown('x.md', '## A\n`watermark` `{opacity,\nlayer}`\n## B\nthe color of it, `layer`\n```json\n{"watermark": {}}\n```\n## C\n`rotation`\n'),
    ]);

    // Act
    const missing = undocumented(
      [{ path: ['pdf', 'watermark', 'opacity'], body: 'X' }, { path: ['pdf', 'watermark', 'color'], body: 'X' }, { path: ['pdf', 'watermark', 'rotation'], body: 'X' }, { path: ['pdf'], body: 'X' }],
      sections,
    );

    // Assess
    assert.deepEqual(missing, ['pdf.watermark.color (X)', 'pdf.watermark.rotation (X)', 'pdf (X)']);
  });

  it('names every option of the OpenAPI document\'s request bodies in README.md and docs/', () => {
    // Prepare
    const files = manualFiles();
    const sections = sectionsOf(files.map((file) => readMarkdown(file)));

    // Act
    const missing = undocumented(requestOptionPaths(buildOpenApiDocument() as unknown as Doc), sections);

    // Assess
    assert.ok(files.includes('README.md'));
    assert.deepEqual(missing, []);
  });

  it('finds a default only where the section naming the option states it', () => {
    // Prepare
    const sections = sectionsOf([parseMarkdown('x.md', '## A\n`watermark`: `opacity` (default 0.5), `color`, `rotation`\n## B\n`layer` of the watermark; `#808080`\n')]);
    const options = [
      { path: ['pdf', 'watermark', 'opacity'], body: 'X', default: 0.5 },
      { path: ['pdf', 'watermark', 'color'], body: 'X', default: '#808080' },
      { path: ['pdf', 'watermark', 'rotation'], body: 'X', default: 0 },
      { path: ['pdf', 'watermark', 'layer'], body: 'X', default: 'over' },
    ];

    // Act
    const unstated = unstatedDefaults(options, sections);

    // Assess
    assert.deepEqual(unstated, ['pdf.watermark.color: default "#808080"', 'pdf.watermark.rotation: default 0', 'pdf.watermark.layer: default "over"']);
  });

  it('states every text or number default of the OpenAPI document where the manual names the option', () => {
    // Prepare
    const sections = sectionsOf(manualFiles().map((file) => readMarkdown(file)));
    const options = requestOptionPaths(buildOpenApiDocument() as unknown as Doc);

    // Act
    const unstated = unstatedDefaults(options, sections);

    // Assess
    assert.ok(options.filter((option) => typeof option.default === 'string').length >= 10);
    assert.deepEqual(unstated, []);
  });
});
