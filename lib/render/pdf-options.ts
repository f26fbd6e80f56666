import type { PDFOptions } from 'puppeteer-core';
import type { PdfOptionsOutput } from '../schemas/render-options.js';
import { decodeBase64Text } from '../schemas/base64-text.js';

/**
 * Stands in for the header or footer the caller did not give: Chromium reads
 * an empty template as "print the default date / title / URL / page line".
 */
export const EMPTY_TEMPLATE = '<span></span>';

/** Margin given to a side that shows a header or footer when the caller set none for it. */
export const HEADER_FOOTER_MARGIN = '1.5cm';

/**
 * Maps the contract's `pdf` options onto puppeteer's `page.pdf()` options,
 * with the service's defaults: US letter, untagged (Chromium would tag, which
 * makes large documents many times bigger and slower), margins that leave
 * room for a header or footer that is shown.
 */
export function toPdfOptions(pdf: PdfOptionsOutput | null | undefined): PDFOptions {
  const o = pdf ?? {};
  const header = o.headerHtml != null ? decodeBase64Text(o.headerHtml) : undefined;
  const footer = o.footerHtml != null ? decodeBase64Text(o.footerHtml) : undefined;
  // The contract's default is false even when a header or footer is given: a
  // template that stores one can then switch it on and off with this flag alone.
  const displayHeaderFooter = o.displayHeaderFooter ?? false;

  const options: PDFOptions = {
    printBackground: o.printBackground ?? false,
    landscape: o.landscape ?? false,
    preferCSSPageSize: o.preferCSSPageSize ?? false,
    omitBackground: o.omitBackground ?? false,
    outline: o.outline ?? false,
    // An outline is built from the structure tree, so it needs a tagged PDF; PDF/UA is a tagged PDF.
    tagged: o.outline === true || o.pdfua === true ? true : (o.tagged ?? false),
    displayHeaderFooter,
  };
  if (o.scale != null) options.scale = o.scale;
  if (o.pageRanges != null && o.pageRanges.trim() !== '') options.pageRanges = o.pageRanges;

  // The format wins over width and height; letter only when no size is given at all.
  if (o.format != null) options.format = o.format;
  else if (o.width == null && o.height == null) options.format = 'letter';
  else {
    if (o.width != null) options.width = o.width;
    if (o.height != null) options.height = o.height;
  }

  const margin: NonNullable<PDFOptions['margin']> = {};
  for (const side of ['top', 'bottom', 'left', 'right'] as const) {
    const value = o.margin?.[side];
    if (value != null) margin[side] = value;
  }

  if (displayHeaderFooter) {
    const chromiumDefaults = header === undefined && footer === undefined;
    if (!chromiumDefaults) {
      options.headerTemplate = header || EMPTY_TEMPLATE;
      options.footerTemplate = footer || EMPTY_TEMPLATE;
    }
    // Headers and footers are drawn inside the page margin: with none they would be cut away.
    if (margin.top === undefined && (chromiumDefaults || Boolean(header))) margin.top = HEADER_FOOTER_MARGIN;
    if (margin.bottom === undefined && (chromiumDefaults || Boolean(footer))) margin.bottom = HEADER_FOOTER_MARGIN;
  }
  if (Object.keys(margin).length > 0) options.margin = margin;
  return options;
}
