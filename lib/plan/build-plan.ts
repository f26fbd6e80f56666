/**
 * Turns a validated render request into its render plan: sources decoded
 * (base64 once, Handlebars rendered), every default applied from the one
 * table the OpenAPI document reads (RENDER_DEFAULTS), and the rules between
 * fields settled here, at the edge, where a problem can still be named by
 * the request's field.
 */
import type { PDFOptions } from 'puppeteer-core';
import { DEFAULT_DEVICE, findDevice } from '../schemas/devices.js';
import type { BandPlan, BandSource, BandsPlan } from '../finishing/steps/bands/bands-plan.js';
import { ValidationError } from '../errors.js';
import type {
  CookiePlan,
  DocumentPlan,
  ImagePlan,
  MergePartPlan,
  MergePlan,
  OverlayPlan,
  PagePlan,
  PageSource,
  PdfPlan,
  ProcessPlan,
  RenderPlan,
  ScreenPlan,
  ShotTarget,
} from '../render/render-plan.js';
import { decodeBase64Text } from '../validation/base64-text.js';
import { hasUrlScheme } from '../validation/css-value.js';
import { RENDER_DEFAULTS } from '../schemas/render-defaults.js';
import {
  BAND_DEFAULT_HEIGHT,
  paperLengthInPx,
  SECTION_HEADINGS_DEFAULT,
  VIEWPORT_FALLBACK,
  type BandOutput,
  type BandVariantOutput,
  type PageOptionsOutput,
  type PdfOptionsOutput,
  type ScreenshotOptionsOutput,
  MISSING_GLYPHS_DEFAULT,
} from '../schemas/render-options.js';
import type { DocumentInput } from '../schemas/merge-requests.js';
import { DEFAULT_IMAGE_DPI, isPageImageOutput, type ImageOptionsOutput, type PageImageOutput, type ProcessInput } from '../schemas/process-requests.js';
import type { PageImagesPlan } from '../finishing/images/page-images.js';
import type { RenderInput } from '../schemas/render-requests.js';
import { needTemplates, type TemplateRenderer } from '../templates/template-engine.js';
import { pdfFinishingPlan } from './pdf-finishing-plan.js';

/**
 * Stands in for the header or footer the caller did not give: Chromium reads
 * an empty template as "print the default date / title / URL / page line".
 */
export const EMPTY_TEMPLATE = '<span></span>';

/** Margin given to a side that shows a header or footer when the caller set none for it. */
export const HEADER_FOOTER_MARGIN = '1.5cm';

/**
 * The plan of a validated request or merge (what a job stores): a merge plans each part, and its
 * top-level pdf once. `templates` renders its templates: `templatesFor(input)` gives it when there are any.
 */
export function buildDocumentPlan(input: DocumentInput, templates: TemplateRenderer | undefined): DocumentPlan {
  if ('process' in input) return processPlan(input);
  if (!('parts' in input)) return buildRenderPlan(input, templates);
  const outline = input.pdf?.outline ?? false;
  const bands = bandsPlan(input.pdf, templates, firstPagePart(input.parts));
  const parts = input.parts.map((part, index): MergePartPlan => {
    const title = part.title ?? undefined;
    if ('document' in part) return { document: Buffer.from(part.document, 'base64'), ...(title != null ? { title } : {}) };
    // With the merged outline on, each part prints its own (unless it says otherwise) to nest it.
    const pdf = outline && part.pdf?.outline == null ? { ...part.pdf, outline: true } : part.pdf;
    const plan = buildRenderPlan({ output: 'PDF', page: part.page, pdf }, templates);
    if (plan.output !== 'PDF') throw new Error('A merge part plans a PDF');
    if (bands) bandsOverPart(plan, bands, index);
    return { plan, ...(title != null ? { title } : {}) };
  });
  const plan: MergePlan = { output: 'PDF', merge: true, parts, outline, finishing: pdfFinishingPlan(input.pdf, undefined, templates) };
  // The merged document is checked once: refused when any rendered part asks for it (named by that part's field).
  const failing = parts.findIndex((part) => 'plan' in part && part.plan.missingGlyphs === 'fail');
  plan.missingGlyphs = failing >= 0 ? 'fail' : MISSING_GLYPHS_DEFAULT;
  if (failing >= 0) plan.missingGlyphsField = `parts.${failing}.pdf.missingGlyphs`;
  if (bands) plan.bands = bands;
  return plan;
}

/** The page options of a merge's first printed part: its `timezone` dates the merge's bands. */
const firstPagePart = (parts: Extract<DocumentInput, { parts: unknown }>['parts']) => {
  const part = parts.find((candidate) => !('document' in candidate));
  return part && 'page' in part ? { timezone: part.page.timezone } : {};
};

/**
 * A merge's bands over a printed part: the part reads its section headings for them and keeps their room
 * free (a side without a margin of the part's own gets the band's height). A part with its own band of
 * the same kind would print one over the other: a 400 naming the part's.
 */
function bandsOverPart(plan: PdfPlan, bands: BandsPlan, index: number): void {
  const clash = (['header', 'footer'] as const).filter((kind) => bands[kind] && plan.bands?.[kind]);
  if (clash.length > 0) {
    throw new ValidationError(
      Object.fromEntries(clash.map((kind) => [`parts.${index}.pdf.${kind}`, `The merge's pdf.${kind} is laid over every page: a part may not have its own`])),
    );
  }
  plan.sectionHeadings = bands.sectionHeadings;
  fitBands(plan.print, bands);
}

/** The plan of a process request: the document decoded once, its finishing planned as a render's (no page, so no template data). */
function processPlan(input: ProcessInput): ProcessPlan {
  const source: ProcessPlan['source'] =
    'document' in input.process ? { kind: 'bytes', bytes: Buffer.from(input.process.document, 'base64') } : { kind: 'url', url: input.process.documentUrl };
  return {
    output: input.output === 'JSON' ? 'JSON' : 'PDF',
    ...(isPageImageOutput(input.output) ? { images: pageImagesPlan(input.output, input.image) } : {}),
    process: true,
    source,
    ...(input.password != null ? { password: input.password } : {}),
    finishing: pdfFinishingPlan(input.pdf),
  };
}

/** What images of the pages a process request asks for: page 1 at DEFAULT_IMAGE_DPI unless it says otherwise. */
function pageImagesPlan(output: PageImageOutput, image: ImageOptionsOutput | null | undefined): PageImagesPlan {
  const type = output === 'PNG' ? 'png' : output === 'JPEG' ? 'jpeg' : 'webp';
  return {
    type,
    pages: image?.pages ?? '1',
    size: image?.width != null ? { width: image.width } : { dpi: image?.dpi ?? DEFAULT_IMAGE_DPI },
    ...(type !== 'png' && image?.quality != null ? { quality: image.quality } : {}),
  };
}

/** The plan of a validated request (a direct render's body, or a template's merged options); `templates` as for `buildDocumentPlan`. */
export function buildRenderPlan(input: RenderInput, templates?: TemplateRenderer): RenderPlan {
  if (input.output === 'PDF') {
    const { print, headerFooter } = printPlan(input.pdf);
    const bands = bandsPlan(input.pdf, templates, input.page);
    if (bands) fitBands(print, bands);
    const plan: PdfPlan = { output: 'PDF', page: pagePlan(input.page, templates), print, headerFooter, finishing: pdfFinishingPlan(input.pdf, input.page.templateData, templates) };
    if (bands) plan.bands = bands;
    if (input.pdf?.toc === true) plan.toc = true;
    plan.missingGlyphs = input.pdf?.missingGlyphs ?? MISSING_GLYPHS_DEFAULT;
    return plan;
  }
  const screenshot = input.screenshot ?? {};
  const plan: ImagePlan = {
    output: 'IMAGE',
    page: pagePlan(input.page, templates),
    screen: screenPlan(screenshot),
    shot: shotPlan(screenshot),
    overlay: screenshot.overlay ? overlayPlan(screenshot.overlay) : null,
    missingGlyphs: screenshot.missingGlyphs ?? MISSING_GLYPHS_DEFAULT,
  };
  return plan;
}

/**
 * The overlay with its CSS strings trimmed and the background read as what it
 * is (a colour or gradient, or an image URL): the schema has checked both, so
 * the render layer sets them without checking again.
 */
export function overlayPlan(overlay: NonNullable<ScreenshotOptionsOutput['overlay']>): OverlayPlan {
  const background = overlay.background?.trim() ? overlay.background.trim() : null;
  const filter = overlay.filter?.trim() ? overlay.filter.trim() : null;
  return {
    ...overlay,
    background: background === null ? null : hasUrlScheme(background) ? { kind: 'image', url: background } : { kind: 'css', value: background },
    filter,
  };
}

/** The page source: `url`, base64 `html`, or a base64 Handlebars `htmlTemplate` filled with `templateData`. */
export function pageSource(page: PageOptionsOutput, templates?: TemplateRenderer): PageSource {
  if (page.url != null) {
    if (!/^https?:\/\//i.test(page.url)) throw new ValidationError({ 'page.url': 'Must be an http or https URL' });
    return { kind: 'url', url: page.url };
  }
  if (page.html != null) {
    try {
      return { kind: 'html', html: decodeBase64Text(page.html), fromTemplate: false };
    } catch (error) {
      throw new ValidationError({ 'page.html': (error as Error).message }, { cause: error });
    }
  }
  if (page.htmlTemplate != null) {
    // Data by reference is read before a plan is built (template-data-source.ts): rendering without it would drop it silently.
    if (page.templateDataUrl != null && page.templateData == null) throw new Error('page.templateDataUrl was not read before the plan was built');
    return { kind: 'html', html: needTemplates(templates)(page.htmlTemplate, page.templateData ?? {}), fromTemplate: true };
  }
  throw new ValidationError({ 'page.url': 'Give one of page.url, page.html or page.htmlTemplate' });
}

function pagePlan(page: PageOptionsOutput, templates: TemplateRenderer | undefined): PagePlan {
  const defaults = RENDER_DEFAULTS.page;
  const source = pageSource(page, templates);
  const pageUrl = source.kind === 'url' ? source.url : undefined;
  const { cookie: cookieHeader, ...headers } = lowerCaseKeys(page.headers ?? {});
  const adblock = page.adblock ?? defaults.adblock;
  const javascript = page.javascript ?? defaults.javascript;
  const selector = page.waitForSelector;
  const fn = page.waitForFunction;
  return {
    source,
    waitUntil: page.waitUntil ?? defaults.waitUntil,
    headers,
    cookies: [
      ...(page.cookies ?? []).map((cookie, index) => cookiePlan(cookie, pageUrl, `page.cookies.${index}.url`)),
      ...(cookieHeader ? cookiesOfHeader(cookieHeader, pageUrl) : []),
    ],
    authentication: page.authentication ? { username: page.authentication.username, password: page.authentication.password } : null,
    adblock,
    javascript,
    // Banners are dismissed on sites, by the ad blocker's companion, which needs scripts to run.
    cookieConsent: source.kind === 'url' && adblock && javascript,
    colorScheme: page.colorScheme || null,
    mediaType: page.mediaType ?? null,
    timezone: page.timezone || null,
    waitForSelector: selector
      ? {
          selector: selector.selector,
          ...(selector.options?.visible != null ? { visible: selector.options.visible } : {}),
          ...(selector.options?.hidden != null ? { hidden: selector.options.hidden } : {}),
          timeoutMs: selector.options?.timeout ?? null,
        }
      : null,
    waitForFunction: fn
      ? { expression: fn.pageFunction, polling: fn.options?.polling ?? 'raf', timeoutMs: fn.options?.timeout ?? null }
      : null,
    waitForMilliseconds: page.waitForMilliseconds ?? 0,
  };
}

function lowerCaseKeys(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

function cookiePlan(cookie: NonNullable<PageOptionsOutput['cookies']>[number], pageUrl: string | undefined, field: string): CookiePlan {
  const url = cookie.url ?? (cookie.domain ? undefined : pageUrl);
  if (!url && !cookie.domain) {
    throw new ValidationError({ [field]: 'Give url or domain: the page is given as HTML, so the cookie has no site' });
  }
  const plan: CookiePlan = { name: cookie.name, value: cookie.value };
  if (url) plan.url = url;
  if (cookie.domain) plan.domain = cookie.domain;
  if (cookie.path != null) plan.path = cookie.path;
  if (cookie.secure != null) plan.secure = cookie.secure;
  if (cookie.httpOnly != null) plan.httpOnly = cookie.httpOnly;
  if (cookie.sameSite != null) plan.sameSite = cookie.sameSite;
  if (cookie.expires != null && cookie.expires >= 0) plan.expires = cookie.expires;
  return plan;
}

/** `headers.cookie` is cookies for the page's site, as a browser would have sent them. */
function cookiesOfHeader(header: string, pageUrl: string | undefined): CookiePlan[] {
  if (!pageUrl) {
    throw new ValidationError({ 'page.headers.cookie': 'Cookies need a site: use page.url, or page.cookies with a domain' });
  }
  return header
    .split(';')
    .map((pair) => {
      const at = pair.indexOf('=');
      return at < 0 ? { name: '', value: pair.trim() } : { name: pair.slice(0, at).trim(), value: pair.slice(at + 1).trim() };
    })
    .filter((cookie) => cookie.name !== '')
    .map((cookie) => ({ ...cookie, url: pageUrl }));
}

/** The screen a screenshot is taken on: the custom viewport if given, else the device preset (default Macbook Pro 16). */
export function screenPlan(screenshot: ScreenshotOptionsOutput | null | undefined): ScreenPlan {
  const viewport = screenshot?.viewport;
  if (viewport) {
    return {
      viewport: {
        width: viewport.width ?? VIEWPORT_FALLBACK.width,
        height: viewport.height ?? VIEWPORT_FALLBACK.height,
        deviceScaleFactor: viewport.deviceScaleFactor ?? VIEWPORT_FALLBACK.deviceScaleFactor,
        isMobile: viewport.isMobile ?? false,
        hasTouch: viewport.hasTouch ?? false,
        isLandscape: viewport.isLandscape ?? false,
      },
    };
  }
  const device = screenshot?.device != null ? findDevice(screenshot.device) : DEFAULT_DEVICE;
  if (!device) throw new ValidationError({ 'screenshot.device': 'Unknown device; see GET /v1/devices' });
  return device.userAgent ? { viewport: { ...device.viewport }, userAgent: device.userAgent } : { viewport: { ...device.viewport } };
}

function shotPlan(s: ScreenshotOptionsOutput): ImagePlan['shot'] {
  const defaults = RENDER_DEFAULTS.screenshot;
  const type = s.type ?? defaults.type;
  return {
    type,
    ...(type !== 'png' && s.quality != null ? { quality: s.quality } : {}),
    omitBackground: s.omitBackground ?? defaults.omitBackground,
    optimizeForSpeed: s.optimizeForSpeed ?? defaults.optimizeForSpeed,
    fromSurface: s.fromSurface ?? defaults.fromSurface,
    target: shotTarget(s),
  };
}

/** `element` overrides clip and fullPage; fullPage overrides clip. */
function shotTarget(s: ScreenshotOptionsOutput): ShotTarget {
  const beyond = RENDER_DEFAULTS.screenshot.captureBeyondViewport;
  if (s.element != null) return { kind: 'element', selector: s.element };
  if (s.fullPage ?? RENDER_DEFAULTS.screenshot.fullPage) {
    return { kind: 'fullPage', captureBeyondViewport: s.captureBeyondViewport ?? beyond.fullPage };
  }
  if (s.clip != null) {
    const clip = { x: s.clip.x, y: s.clip.y, width: s.clip.width, height: s.clip.height, scale: s.clip.scale ?? 1 };
    return { kind: 'clip', clip, captureBeyondViewport: s.captureBeyondViewport ?? beyond.clip };
  }
  return { kind: 'viewport' };
}

/**
 * The contract's `pdf` options as puppeteer's `page.pdf()` options, with the
 * service's defaults: US letter, untagged (Chromium would tag, which makes
 * large documents many times bigger and slower), margins that leave room for
 * a header or footer that is shown.
 */
export function printPlan(pdf: PdfOptionsOutput | null | undefined): Pick<PdfPlan, 'print' | 'headerFooter'> {
  const o = pdf ?? {};
  const defaults = RENDER_DEFAULTS.pdf;
  const header = o.headerHtml != null ? decodeBase64Text(o.headerHtml) : undefined;
  const footer = o.footerHtml != null ? decodeBase64Text(o.footerHtml) : undefined;
  // The contract's default is false even when a header or footer is given: a
  // template that stores one can then switch it on and off with this flag alone.
  const displayHeaderFooter = o.displayHeaderFooter ?? defaults.displayHeaderFooter;

  const options: PDFOptions = {
    printBackground: o.printBackground ?? defaults.printBackground,
    landscape: o.landscape ?? defaults.landscape,
    preferCSSPageSize: o.preferCSSPageSize ?? defaults.preferCSSPageSize,
    omitBackground: o.omitBackground ?? defaults.omitBackground,
    outline: o.outline ?? defaults.outline,
    // An outline is built from the structure tree, so it needs a tagged PDF; PDF/UA is a tagged PDF.
    tagged: o.outline === true || o.pdfua === true ? true : (o.tagged ?? defaults.tagged),
    displayHeaderFooter,
  };
  if (o.scale != null) options.scale = o.scale;
  if (o.pageRanges != null && o.pageRanges.trim() !== '') options.pageRanges = o.pageRanges;

  // The format wins over width and height; the default format only when no size is given at all.
  if (o.format != null) options.format = o.format;
  else if (o.width == null && o.height == null) options.format = defaults.format;
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
  marginsFit(options);
  const given = displayHeaderFooter && !(header === undefined && footer === undefined);
  return { print: options, headerFooter: { header: given && Boolean(o.headerHtml), footer: given && Boolean(o.footerHtml) } };
}

/** Points per CSS pixel. */
const POINTS_PER_PX = 0.75;

/** Variables a band template is tried with at the edge, so a template that does not render is a 400 before anything prints. */
const SAMPLE_BAND_VARIABLES = { pageNumber: 1, totalPages: 1, title: '', date: '', url: '', section: '' };

/** The running header and footer of `pdf`, defaults applied, templates tried once; none when neither is given. */
export function bandsPlan(
  pdf: Pick<PdfOptionsOutput, 'header' | 'footer' | 'sectionHeadings'> | null | undefined,
  templates: TemplateRenderer | undefined,
  page: Pick<PageOptionsOutput, 'timezone' | 'templateData'> = {},
): BandsPlan | undefined {
  if (pdf?.header == null && pdf?.footer == null) return undefined;
  const templateData = page.templateData ?? undefined;
  const band = (given: BandOutput, name: BandPlan['name']): BandPlan => {
    // The request's path of the band, for what is refused while planning; the plan names the band by its option.
    const field = `pdf.${name}`;
    const source = (variant: BandVariantOutput, at: string): BandSource => {
      if (variant.html != null) return { kind: 'html', html: decodeBase64Text(variant.html) };
      const template = variant.htmlTemplate ?? '';
      needTemplates(templates)(template, { ...templateData, ...SAMPLE_BAND_VARIABLES }, { field: `${at}.htmlTemplate` });
      return { kind: 'template', template };
    };
    const height = given.height ?? BAND_DEFAULT_HEIGHT;
    return {
      name,
      height: (typeof height === 'number' ? height : paperLengthInPx(height)) * POINTS_PER_PX,
      pages: given.pages ?? '',
      main: source(given, field),
      ...(given.firstPage ? { firstPage: source(given.firstPage, `${field}.firstPage`) } : {}),
      ...(given.evenPages ? { evenPages: source(given.evenPages, `${field}.evenPages`) } : {}),
    };
  };
  return {
    ...(pdf.header ? { header: band(pdf.header, 'header') } : {}),
    ...(pdf.footer ? { footer: band(pdf.footer, 'footer') } : {}),
    sectionHeadings: pdf.sectionHeadings ?? SECTION_HEADINGS_DEFAULT,
    ...(page.timezone != null ? { timeZone: page.timezone } : {}),
    ...(templateData ? { templateData } : {}),
  };
}

/** Paper heights and widths in inches, portrait, as Chromium prints the formats. */
const FORMAT_INCHES: Record<string, [number, number]> = {
  letter: [8.5, 11], legal: [8.5, 14], tabloid: [11, 17], ledger: [17, 11],
  a0: [33.1102, 46.811], a1: [23.3858, 33.1102], a2: [16.5354, 23.3858], a3: [11.6929, 16.5354],
  a4: [8.2677, 11.6929], a5: [5.8268, 8.2677], a6: [4.1339, 5.8268],
};

/**
 * The margins must leave room on the paper: left and right together
 * narrower than its width, top and bottom lower than its height, or Chromium
 * answers the print with "Printing failed" (a 500 before this 400). A CSS
 * @page size (preferCSSPageSize) may still change the paper: then the
 * options' size is not the page's, and Chromium is left to judge.
 */
function marginsFit(print: PDFOptions): void {
  if (!print.margin || print.preferCSSPageSize) return;
  const px = (length: string | number | undefined) => (length === undefined ? 0 : typeof length === 'number' ? length : paperLengthInPx(length));
  const format = print.format ? FORMAT_INCHES[print.format.toLowerCase()] : undefined;
  // puppeteer's default for a side not given is US letter's.
  const [portraitWidth, portraitHeight] = format ? format.map((inches) => inches * 96) : [print.width === undefined ? 816 : px(print.width), print.height === undefined ? 1056 : px(print.height)];
  const [width, height] = print.landscape ? [portraitHeight, portraitWidth] : [portraitWidth, portraitHeight];
  const { top, bottom, left, right } = print.margin;
  const problems: Record<string, string> = {};
  if (width !== undefined && px(left) + px(right) >= width) {
    const message = `Must leave room on the page: the paper is ${Math.round(width)}px wide, the left and right margins together must be less`;
    Object.assign(problems, { 'pdf.margin.left': message, 'pdf.margin.right': message });
  }
  if (height !== undefined && px(top) + px(bottom) >= height) {
    const message = `Must leave room on the page: the paper is ${Math.round(height)}px high, the top and bottom margins together must be less`;
    Object.assign(problems, { 'pdf.margin.top': message, 'pdf.margin.bottom': message });
  }
  if (Object.keys(problems).length > 0) throw new ValidationError(problems);
}

/** The printed page's height in points, as far as the options tell (a CSS @page size may still change it: the finishing checks again). */
function pageHeightPt(print: PDFOptions): number | undefined {
  const toPt = (length: string | number | undefined) => (length === undefined ? undefined : (typeof length === 'number' ? length : paperLengthInPx(length)) * POINTS_PER_PX);
  const format = print.format ? FORMAT_INCHES[print.format.toLowerCase()] : undefined;
  const [width, height] = format ? format.map((inches) => inches * 72) : [toPt(print.width), toPt(print.height)];
  return print.landscape ? width : height;
}

/**
 * The bands must fit on the page: a band (or both) as tall as the page is a
 * 400 on its height, here, before Chromium refuses the margins. The body
 * leaves its top and bottom margins to the bands: a side the caller set no
 * margin for gets the band's height.
 */
function fitBands(print: PDFOptions, bands: BandsPlan): void {
  const pageHeight = pageHeightPt(print);
  const given = [bands.header, bands.footer].filter((band): band is BandPlan => band != null);
  if (pageHeight !== undefined && given.reduce((sum, band) => sum + band.height, 0) >= pageHeight) {
    const message = `Must leave room on the page: the page is ${Math.round(pageHeight)}pt high, the header and footer together may take less`;
    throw new ValidationError(Object.fromEntries(given.map((band) => [`pdf.${band.name}.height`, message])));
  }
  const margin = { ...print.margin };
  if (bands.header && margin.top === undefined) margin.top = `${bands.header.height / 72}in`;
  if (bands.footer && margin.bottom === undefined) margin.bottom = `${bands.footer.height / 72}in`;
  print.margin = margin;
}
