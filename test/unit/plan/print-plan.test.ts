import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EMPTY_TEMPLATE, HEADER_FOOTER_MARGIN, printPlan } from '../../../lib/plan/build-plan.js';

/** puppeteer's print options of a plan, as the PDF's plan holds them. */
const toPdfOptions = (pdf: Parameters<typeof printPlan>[0]) => printPlan(pdf).print;

const b64 = (text: string) => Buffer.from(text).toString('base64');

describe('toPdfOptions', () => {
  it('defaults to an untagged US letter page without header, footer or outline', () => {
    // Act
    const options = toPdfOptions(undefined);

    // Assess
    assert.equal(options.format, 'letter');
    assert.equal(options.tagged, false);
    assert.equal(options.outline, false);
    assert.equal(options.displayHeaderFooter, false);
    assert.equal(options.margin, undefined);
  });

  it('treats null fields like absent ones', () => {
    // Act
    const options = toPdfOptions({ format: null, scale: null, margin: null, tagged: null, pageRanges: null });

    // Assess
    assert.equal(options.format, 'letter');
    assert.equal(options.scale, undefined);
    assert.equal(options.tagged, false);
    assert.equal(options.pageRanges, undefined);
  });

  it('lets the format win over width and height, and uses width and height without a format', () => {
    // Act
    const withFormat = toPdfOptions({ format: 'a4', width: '5in', height: '7in' });
    const withSize = toPdfOptions({ width: 480, height: '7in' });

    // Assess
    assert.deepEqual([withFormat.format, withFormat.width, withFormat.height], ['a4', undefined, undefined]);
    assert.deepEqual([withSize.format, withSize.width, withSize.height], [undefined, 480, '7in']);
  });

  it('tags the PDF for PDF/UA, even against tagged: false', () => {
    assert.equal(toPdfOptions({ pdfua: true, tagged: false }).tagged, true);
  });

  it('tags the PDF when an outline is asked for, even against tagged: false', () => {
    // Act
    const options = toPdfOptions({ outline: true, tagged: false });

    // Assess
    assert.equal(options.outline, true);
    assert.equal(options.tagged, true);
  });

  it('prints no header or footer when displayHeaderFooter is not true, even when they are given', () => {
    // Act
    const options = toPdfOptions({ headerHtml: b64('<p>h</p>'), footerHtml: b64('<span class="pageNumber"></span>') });

    // Assess
    assert.equal(options.displayHeaderFooter, false);
    assert.equal(options.headerTemplate, undefined);
    assert.equal(options.footerTemplate, undefined);
    assert.equal(options.margin, undefined);
  });

  it('shows a footer given alone with an empty header and room below', () => {
    // Act
    const options = toPdfOptions({ displayHeaderFooter: true, footerHtml: b64('<span class="pageNumber"></span>') });

    // Assess
    assert.equal(options.displayHeaderFooter, true);
    assert.equal(options.footerTemplate, '<span class="pageNumber"></span>');
    assert.equal(options.headerTemplate, EMPTY_TEMPLATE, 'not Chromium\'s date and title');
    assert.deepEqual(options.margin, { bottom: HEADER_FOOTER_MARGIN });
  });

  it('keeps the caller\'s margins and the decision not to display', () => {
    // Act
    const given = toPdfOptions({ displayHeaderFooter: true, headerHtml: b64('<p>h</p>'), margin: { top: '2in', left: '1cm' } });
    const hidden = toPdfOptions({ displayHeaderFooter: false, headerHtml: b64('<p>h</p>') });

    // Assess
    assert.deepEqual(given.margin, { top: '2in', left: '1cm' });
    assert.equal(hidden.displayHeaderFooter, false);
    assert.equal(hidden.margin, undefined);
  });

  it('leaves Chromium\'s default header and footer when display is asked for without templates, with room for both', () => {
    // Act
    const options = toPdfOptions({ displayHeaderFooter: true });

    // Assess
    assert.equal(options.headerTemplate, undefined);
    assert.equal(options.footerTemplate, undefined);
    assert.deepEqual(options.margin, { top: HEADER_FOOTER_MARGIN, bottom: HEADER_FOOTER_MARGIN });
  });

  it('passes the remaining options through', () => {
    // Act
    const options = toPdfOptions({
      scale: 0.5, printBackground: true, landscape: true, pageRanges: '1-2', preferCSSPageSize: true, omitBackground: true,
      margin: { top: '1cm', bottom: '2cm', left: '3mm', right: 10 as unknown as string },
    });

    // Assess
    assert.deepEqual(
      [options.scale, options.printBackground, options.landscape, options.pageRanges, options.preferCSSPageSize, options.omitBackground],
      [0.5, true, true, '1-2', true, true],
    );
    assert.deepEqual(options.margin, { top: '1cm', bottom: '2cm', left: '3mm', right: 10 });
  });

  it('refuses margins that leave no room on the paper, naming both sides (Chromium answered the print with "Printing failed", a 500)', () => {
    // The fuzzer's case: 7111 px wide, left and right 25,660 px together
    assert.throws(
      () => toPdfOptions({ width: 7111.3, margin: { left: 11804.1, right: 13855.9, top: '.17', bottom: '8.6' } }),
      (error: Error & { fields?: Record<string, string> }) => Object.keys(error.fields ?? {}).sort().join() === 'pdf.margin.left,pdf.margin.right',
    );
    // A4 landscape is 1123 px wide and 794 px high: 4in + 4.5in top and bottom is 816 px
    assert.throws(
      () => toPdfOptions({ format: 'a4', landscape: true, margin: { top: '4in', bottom: '4.5in' } }),
      (error: Error & { fields?: Record<string, string> }) => /Must leave room on the page/.test(error.fields?.['pdf.margin.top'] ?? ''),
    );
    // ...while margins that leave room, and a CSS page size the options do not know, are Chromium's to print
    assert.doesNotThrow(() => toPdfOptions({ format: 'a4', margin: { top: '4in', bottom: '4.5in' } }));
    assert.doesNotThrow(() => toPdfOptions({ width: 100, margin: { left: 80, right: 80 }, preferCSSPageSize: true }));
  });
});
