import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { httpError } from '../../../lib/errors.js';
import { earnsRefund } from '../../../lib/http/quota-spend.js';
import { MissingGlyphsError } from '../../../lib/glyphs/glyph-report.js';
import { warmFinishingRenderer, type RequestRenderer } from '../../helpers/local-egress.js';
import { startTestServer } from '../../helpers/test-server.js';
import { b64 } from './render-fixtures.js';

// U+E000 is private use: no font of the layer (nor of this machine) has it, so it can only be drawn as .notdef.
const MISSING = '\uE000';

describe('characters no font draws (pdf.missingGlyphs, screenshot.missingGlyphs)', () => {
  let renderer: RequestRenderer;
  before(async () => {
    renderer = await warmFinishingRenderer();
  });
  after(async () => {
    await renderer?.close();
  });

  it('reports a private-use character of the body, on page 1', async () => {
    // Act
    const result = await renderer.render({ output: 'PDF', page: { html: b64(`<p>Total ${MISSING} 12</p>`) } });

    // Assess
    assert.deepEqual(result.missingGlyphs, { count: 1, codePoints: ['U+E000'], firstPage: 1 });
  });

  it('reports nothing for a page of ordinary text', async () => {
    // Act
    const result = await renderer.render({ output: 'PDF', page: { html: b64('<p>An ordinary invoice line, 12.50</p>') } });

    // Assess
    assert.equal(result.missingGlyphs, undefined);
  });

  it("reports one in Chromium's footer, named although the file does not name it", async () => {
    // Act
    const result = await renderer.render({
      output: 'PDF',
      page: { html: b64('<p>body</p>') },
      pdf: { displayHeaderFooter: true, footerHtml: b64(`<span style="font-size:10px">Page ${MISSING}</span>`), margin: { bottom: '2cm' } },
    });

    // Assess
    assert.deepEqual(result.missingGlyphs, { count: 1, codePoints: ['U+E000'], firstPage: 1 });
  });

  it("reports one in Chromium's header on every page, named although the file does not name it", async () => {
    // Act: two pages, the header printed on each.
    const result = await renderer.render({
      output: 'PDF',
      page: { html: b64('<p style="break-after:page">one</p><p>two</p>') },
      pdf: { displayHeaderFooter: true, headerHtml: b64(`<span style="font-size:10px">Report ${MISSING}</span>`), margin: { top: '2cm' } },
    });

    // Assess
    assert.deepEqual(result.missingGlyphs, { count: 2, codePoints: ['U+E000'], firstPage: 1 });
  });

  it('reports one in a band laid on the pages', async () => {
    // Act
    const result = await renderer.render({ output: 'PDF', page: { html: b64('<p>body</p>') }, pdf: { footer: { html: b64(`<p>Footer ${MISSING}</p>`) } } });

    // Assess
    assert.equal(result.missingGlyphs?.count, 1);
    assert.equal(result.missingGlyphs?.firstPage, 1);
  });

  it('reports one in a text watermark', async () => {
    // Act
    const result = await renderer.render({ output: 'PDF', page: { html: b64('<p>body</p>') }, pdf: { watermark: { text: `DRAFT ${MISSING}` } } } as never);

    // Assess
    assert.equal(result.missingGlyphs?.count, 1);
    assert.equal(result.missingGlyphs?.firstPage, 1);
  });

  it('reports one in a screenshot', async () => {
    // Act
    const result = await renderer.render({ output: 'IMAGE', page: { html: b64(`<p style="font-size:40px">A ${MISSING} B</p>`) } });

    // Assess
    assert.deepEqual(result.missingGlyphs, { count: 1, codePoints: ['U+E000'] });
  });

  it('reports one in a screenshot of an SVG document, whose document makes no HTML elements', async () => {
    // Prepare
    const site = await startTestServer({
      '/doc.svg': (_req, res) => {
        res.writeHead(200, { 'content-type': 'image/svg+xml' });
        res.end(`<svg xmlns="http://www.w3.org/2000/svg" width="300" height="80"><text x="10" y="50" font-size="30">A ${MISSING} B</text></svg>`);
      },
    });
    try {
      // Act
      const result = await renderer.render({ output: 'IMAGE', page: { url: `${site.url}/doc.svg` } });

      // Assess
      assert.deepEqual(result.missingGlyphs, { count: 1, codePoints: ['U+E000'] });
    } finally {
      await site.close();
    }
  });

  it("answers a page whose scripts break the probe with a partial report, not a failure", async () => {
    // Act
    const html = `<p>A ${MISSING} B</p><script>window.getComputedStyle = () => { throw new Error('not for you'); };</script>`;
    const result = await renderer.render({ output: 'IMAGE', page: { html: b64(html) } });

    // Assess
    assert.deepEqual(result.missingGlyphs, { count: 0, codePoints: [], partial: true });
  });

  it('refuses the render with "fail": a 422 naming the character, refunded', async () => {
    // Act
    const failure = await renderer.render({ output: 'PDF', page: { html: b64(`<p>${MISSING}</p>`) }, pdf: { missingGlyphs: 'fail' } }).then(
      () => assert.fail('rendered'),
      (error: unknown) => error,
    );

    // Assess
    assert.ok(failure instanceof MissingGlyphsError, String(failure));
    const answered = httpError(failure) as { statusCode: number; fields: Record<string, string> };
    assert.equal(answered.statusCode, 422);
    assert.match(answered.fields['pdf.missingGlyphs'] ?? '', /U\+E000/);
    assert.equal(earnsRefund(failure), true);
  });
});
