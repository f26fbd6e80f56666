/**
 * Valibot schemas of the render options of interface.md (`page`,
 * `screenshot`, `pdf`, `storage`, `webhook`) with the limits of
 * decisions.md. Every object is closed: an unknown key is a 400 naming it
 * ("Unknown field"). Fields are optional and nullable unless the contract
 * requires them. Schemas are built once, at module load.
 */
import * as v from 'valibot';
import { documented, integerBetween, numberBetween, oneOf, positiveNumberUpTo } from '../validation/field-builders.js';
import { MAX_IMAGE_PIXELS } from '../input/image-limits.js';
import { isPlainObject } from '../validation/is-plain-object.js';
import { FRAMING_HEADERS } from '../net/hop-by-hop-headers.js';
import { DEFAULT_DEVICE, findDevice, listDevices } from './devices.js';
import { CAPTURE_BEYOND_VIEWPORT_DEFAULTS, RENDER_DEFAULTS } from './render-defaults.js';
import { base64TextPattern, tryDecodeBase64Text } from '../validation/base64-text.js';
import { maxCharacters } from '../validation/character-length.js';
import { closedObject } from '../validation/closed-object.js';
import { cssValueProblem, hasUrlScheme } from '../validation/css-value.js';
import { httpUrl, publicHttpUrl } from '../validation/http-url.js';
import { MAX_JSON_DEPTH, nestsWithin } from '../validation/json-depth.js';
import { uploadOrHttpUrl } from './upload-url.js';
import { PageRangesSchema } from '../validation/page-ranges.js';
import { FINISHING_ENTRIES, finishingRules } from '../finishing/pipeline/finishing-options.js';
import { fieldRules, type FieldConflict } from '../validation/field-rules.js';
import { WEBHOOK_SIGNATURE_HEADER_NAMES } from './webhook-signature-headers.js';

// ---------------------------------------------------------------------------
// Limits the contract leaves open (documented in docs/api.md)
// ---------------------------------------------------------------------------

/**
 * Longest wait a page may ask for (selector, function, polling): the whole
 * render of a raw or sync request must fit its 25 s budget inside API
 * Gateway's 30 s, so a longer wait could never end in "the request continues".
 */
export const MAX_WAIT_TIMEOUT_MS = 25_000;
/** Largest template data read by reference (`page.templateDataUrl`): far above the request body's limit. */
export const MAX_TEMPLATE_DATA_URL_BYTES = 64 * 1024 * 1024;
/** Fastest `waitForFunction` polling interval: faster only burns the render's CPU. */
export const MIN_POLLING_MS = 10;
/** Largest `deviceScaleFactor` / `clip.scale`. */
export const MAX_SCALE_FACTOR = 4;
/** Largest paper edge or margin: 200 in, the largest page a PDF may declare (14 400 pt). */
export const MAX_PAPER_INCHES = 200;
/** A header's or footer's height when not given. */
export const BAND_DEFAULT_HEIGHT = '1.5cm';
/** The headings a band's `section` is read from when `sectionHeadings` is not given. */
export const SECTION_HEADINGS_DEFAULT = 'h1, h2, h3';
/** Largest `overlay.margin` and `overlay.screenshotBorderRadius`, in CSS pixels. */
export const MAX_OVERLAY_PX = 1000;
/** What a render does about characters no font draws (issue 46): names them in the answer, or refuses with a 422. */
export const MISSING_GLYPHS = ['report', 'fail'] as const;
export const MISSING_GLYPHS_DEFAULT: (typeof MISSING_GLYPHS)[number] = 'report';
/**
 * What a `viewport` that omits a size means: the default device's CSS size
 * (1536×960) at scale factor 1, as for any custom viewport.
 */
export const VIEWPORT_FALLBACK = {
  width: DEFAULT_DEVICE.viewport.width,
  height: DEFAULT_DEVICE.viewport.height,
  deviceScaleFactor: 1,
} as const;

const MAX_SELECTOR_LENGTH = 1024;
const MAX_METADATA_BYTES = 1024;

// ---------------------------------------------------------------------------
// Building blocks
// ---------------------------------------------------------------------------

const StringSchema = v.string('Must be a string');
const BooleanSchema = v.boolean('Must be a boolean');
const MissingGlyphsSchema = oneOf(MISSING_GLYPHS);

function textBetween(min: number, max: number) {
  return v.pipe(
    StringSchema,
    v.minLength(min, min === 1 ? 'Must not be empty' : `Must be at least ${min} characters`),
    maxCharacters(max, `Must be at most ${max} characters`),
  );
}

function base64Problem(encoded: string, allowEmpty: boolean): string | undefined {
  const result = tryDecodeBase64Text(encoded);
  if (!result.ok) return result.problem;
  if (!allowEmpty && result.text.length === 0) return 'Must not be empty';
  return undefined;
}

/** Base64 UTF-8 text; the output is the base64 string exactly as sent. */
function base64Text(allowEmpty: boolean) {
  return v.pipe(
    StringSchema,
    v.check(
      (encoded) => base64Problem(encoded, allowEmpty) === undefined,
      (issue) => base64Problem(issue.input, allowEmpty) ?? 'Must be valid base64',
    ),
    // The check above in the document's words, UTF-8 aside (JSON Schema has no form for it).
    v.metadata({ pattern: base64TextPattern(!allowEmpty), contentEncoding: 'base64', contentMediaType: 'text/html' }),
  );
}

const JsonObjectSchema = v.pipe(v.custom<Record<string, unknown>>(isPlainObject, 'Must be a JSON object'), v.metadata({ type: 'object' }));

// RFC 9110 token; values may not break the header line.
export const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// CR, LF and NUL would end or cut the header line; other controls (but tab) are not field content either.
// A header value is bytes: a character past U+00FF has no byte to be sent as, and Node's HTTP client throws
// on it (ERR_INVALID_CHAR), so it is refused here rather than failing the upload or webhook call later.
const HEADER_VALUE = /^[\t\u0020-\u007e\u0080-\u00ff]*$/;
const HEADER_VALUE_MESSAGE = 'Must not contain line breaks, NUL, other control characters or characters beyond U+00FF (encode them, e.g. as percent escapes)';

/**
 * Header names a caller may not set: they frame the message or route it
 * (hop-by-hop, RFC 9110 §7.6.1), so a caller's value would let one request
 * smuggle another, reach a different virtual host than the URL names, or talk
 * to the egress proxy instead of the site. Compared case-insensitively.
 */
export const RESERVED_HEADERS: ReadonlySet<string> = new Set([...FRAMING_HEADERS, 'host']);
/**
 * The signature headers the service writes on every webhook call: Standard
 * Webhooks' and the vendor's. A caller's value would be overwritten, so it is
 * refused instead of silently dropped.
 */
export const WEBHOOK_SIGNATURE_HEADERS: ReadonlySet<string> = new Set(WEBHOOK_SIGNATURE_HEADER_NAMES);

function headerNameProblem(name: string, extraReserved: ReadonlySet<string>): string | undefined {
  if (!HEADER_NAME.test(name)) return 'Must be a valid HTTP header name';
  const lower = name.toLowerCase();
  if (RESERVED_HEADERS.has(lower) || lower.startsWith('proxy-')) {
    return 'This header cannot be set: it frames or routes the request, and the service sets it itself';
  }
  if (extraReserved.has(lower)) return 'This header cannot be set: the service signs webhook calls with it';
  return undefined;
}

/**
 * Most bytes of header names and values together: what common servers accept
 * in a request head (8 KiB). Larger sets would only be refused by the site,
 * and would bloat every job record they are stored in.
 */
export const MAX_HEADER_BYTES = 8 * 1024;

function headerBytes(headers: Record<string, string>): number {
  let total = 0;
  for (const [name, value] of Object.entries(headers)) total += Buffer.byteLength(name) + Buffer.byteLength(value);
  return total;
}

function headersSchema(extraReserved: ReadonlySet<string> = new Set()) {
  return v.pipe(
    JsonObjectSchema,
    v.record(
      v.pipe(
        v.string(),
        v.check(
          (name) => headerNameProblem(name, extraReserved) === undefined,
          (issue) => headerNameProblem(String(issue.input), extraReserved) ?? 'Must be a valid HTTP header name',
        ),
      ),
      v.pipe(StringSchema, v.regex(HEADER_VALUE, HEADER_VALUE_MESSAGE)),
    ),
    v.check((headers) => headerBytes(headers) <= MAX_HEADER_BYTES, `Headers may take ${MAX_HEADER_BYTES / 1024} KB at most, names and values together`),
  );
}

/** `page.headers`: sent with every request of the page. */
const PageHeadersSchema = headersSchema();
/** `webhook.headers`: sent with the webhook call, beside the signature headers. */
const WebhookHeadersSchema = headersSchema(WEBHOOK_SIGNATURE_HEADERS);

/** Record of strings, for `webhook.metadata`. */
const StringRecordSchema = v.pipe(JsonObjectSchema, v.record(v.string(), StringSchema));

// ---------------------------------------------------------------------------
// Time zones
// ---------------------------------------------------------------------------

const CANONICAL_TIME_ZONES = new Set(Intl.supportedValuesOf('timeZone'));

function resolveTimeZone(timeZone: string): string | undefined {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/**
 * An ICU zone ID as Chromium's timezone emulation understands it: canonical
 * IDs and their aliases (`UTC`, `US/Eastern`) in their proper spelling.
 * Offsets such as `+01:00` pass `Intl` but Chromium ignores them, and
 * Chromium does not match names case-insensitively (`utc` becomes an
 * unknown zone), so both are refused.
 */
function isIcuTimeZone(timeZone: string): boolean {
  if (CANONICAL_TIME_ZONES.has(timeZone)) return true;
  if (!/^[A-Za-z]/.test(timeZone)) return false;
  const resolved = resolveTimeZone(timeZone);
  if (resolved === undefined) return false;
  if (resolved.toLowerCase() === timeZone.toLowerCase()) return resolved === timeZone;
  return timeZone.split('/').every((part) => /^[A-Z]/.test(part));
}

function timeZoneMessage(timeZone: string): string {
  const resolved = resolveTimeZone(timeZone);
  if (resolved !== undefined && resolved !== timeZone && resolved.toLowerCase() === timeZone.toLowerCase()) {
    return `Unknown time zone; did you mean ${resolved}?`;
  }
  return 'Unknown time zone; use an ICU time zone ID such as Europe/Paris';
}

const TimeZoneSchema = v.pipe(
  StringSchema,
  maxCharacters(64, 'Must be at most 64 characters'),
  v.check(isIcuTimeZone, (issue) => timeZoneMessage(issue.input)),
);

// ---------------------------------------------------------------------------
// CSS strings of the overlay
// ---------------------------------------------------------------------------

const BackgroundUrlSchema = publicHttpUrl('image URL');

/** `overlay.background`: a colour, a gradient, or an http(s) image URL. */
function backgroundProblem(background: string): string | undefined {
  if (hasUrlScheme(background)) {
    const parsed = v.safeParse(BackgroundUrlSchema, background);
    return parsed.success ? undefined : parsed.issues[0].message;
  }
  return cssValueProblem(background);
}

const BackgroundSchema = v.pipe(
  StringSchema,
  v.maxLength(2048, 'Must be at most 2048 characters'),
  v.check(
    (background) => backgroundProblem(background) === undefined,
    (issue) => backgroundProblem(issue.input) ?? 'Invalid background',
  ),
);

const CssFilterSchema = v.pipe(
  StringSchema,
  v.maxLength(512, 'Must be at most 512 characters'),
  v.check(
    (filter) => cssValueProblem(filter) === undefined,
    (issue) => cssValueProblem(issue.input) ?? 'Invalid filter',
  ),
);

// ---------------------------------------------------------------------------
// PDF lengths and page ranges
// ---------------------------------------------------------------------------

const PX_PER_UNIT = { px: 1, in: 96, cm: 96 / 2.54, mm: 96 / 25.4 } as const;
const MAX_PAPER_PX = MAX_PAPER_INCHES * 96;
// What puppeteer's paper-size parser reads: a number, optionally a unit.
const PAPER_LENGTH = /^(\d+(?:\.\d+)?|\.\d+)(px|in|cm|mm)?$/i;

/** A paper length string (`"1.5cm"`) in CSS pixels; NaN when it is none. */
export function paperLengthInPx(length: string): number {
  const match = PAPER_LENGTH.exec(length);
  if (!match) return Number.NaN;
  const unit = (match[2]?.toLowerCase() ?? 'px') as keyof typeof PX_PER_UNIT;
  return Number(match[1]) * PX_PER_UNIT[unit];
}

/**
 * A paper length: a number of CSS pixels or a string such as `"210mm"`. A
 * paper side is a CSS pixel at least: Chromium failed to print far smaller
 * pages (1e-8 px), and the render answered 500.
 */
function paperLength(allowZero: boolean) {
  const min = allowZero ? 0 : 1;
  return v.union(
    [
      v.pipe(
        v.number(),
        v.minValue(min, `Must be at least ${min}`),
        v.maxValue(MAX_PAPER_PX, `Must be at most ${MAX_PAPER_PX} (${MAX_PAPER_INCHES}in)`),
      ),
      v.pipe(
        v.string(),
        v.regex(PAPER_LENGTH, 'Must be a number followed by px, in, cm or mm, e.g. "210mm"'),
        v.check((length) => paperLengthInPx(length) >= min, `Must be at least ${min}px`),
        v.check((length) => paperLengthInPx(length) <= MAX_PAPER_PX, `Must be at most ${MAX_PAPER_INCHES}in`),
      ),
    ],
    'Must be a number of CSS pixels or a string such as "210mm" (px, in, cm or mm)',
  );
}

export const PAPER_FORMATS = [
  'letter', 'legal', 'tabloid', 'ledger', 'a0', 'a1', 'a2', 'a3', 'a4', 'a5', 'a6',
] as const;

/** Lower-case names as in the contract; `A4` or `Letter` are accepted and lower-cased. */
const PaperFormatSchema = v.pipe(
  v.string(`Must be one of: ${PAPER_FORMATS.join(', ')}`),
  v.toLowerCase(),
  oneOf(PAPER_FORMATS),
);

// ---------------------------------------------------------------------------
// page
// ---------------------------------------------------------------------------

/** Cookie added to the page before it loads. */
export const CookieSchema = closedObject({
  name: v.pipe(StringSchema, v.nonEmpty('Must not be empty'), v.regex(HEADER_VALUE, HEADER_VALUE_MESSAGE)),
  // CR, LF or NUL in a value would break the Cookie header it travels in.
  value: v.pipe(StringSchema, v.regex(HEADER_VALUE, HEADER_VALUE_MESSAGE)),
  domain: v.nullish(StringSchema),
  url: v.nullish(httpUrl()),
  path: v.nullish(StringSchema),
  secure: v.nullish(BooleanSchema),
  httpOnly: v.nullish(BooleanSchema),
  sameSite: v.nullish(oneOf(['Strict', 'Lax', 'None'])),
  // Unix seconds; -1 is how Chromium writes a session cookie.
  expires: v.nullish(v.pipe(v.number('Must be a number'), v.minValue(-1, 'Must be at least -1'))),
});

const WaitForSelectorOptionsSchema = v.pipe(
  closedObject({
    visible: v.nullish(BooleanSchema),
    hidden: v.nullish(BooleanSchema),
    timeout: v.nullish(integerBetween(0, MAX_WAIT_TIMEOUT_MS)),
  }),
  v.forward(
    v.partialCheck(
      [['visible'], ['hidden']],
      (options) => !(options.visible === true && options.hidden === true),
      'Cannot be combined with visible',
    ),
    ['hidden'],
  ),
  // The check above in the document's words.
  v.metadata({ not: { required: ['visible', 'hidden'], properties: { visible: { const: true }, hidden: { const: true } } } }),
);

const selectorEntries = {
  selector: textBetween(1, MAX_SELECTOR_LENGTH),
  options: v.nullish(WaitForSelectorOptionsSchema),
};

/** Wait for a CSS selector before rendering; the render continues after `timeout`. */
export const WaitForSelectorSchema = closedObject(selectorEntries);

const PollingSchema = v.union(
  [oneOf(['raf', 'mutation']), integerBetween(MIN_POLLING_MS, MAX_WAIT_TIMEOUT_MS)],
  `Must be raf, mutation or a number of milliseconds (${MIN_POLLING_MS} to ${MAX_WAIT_TIMEOUT_MS})`,
);

const functionEntries = {
  pageFunction: textBetween(1, MAX_SELECTOR_LENGTH),
  options: v.nullish(
    closedObject({
      polling: v.nullish(PollingSchema),
      timeout: v.nullish(integerBetween(0, MAX_WAIT_TIMEOUT_MS)),
    }),
  ),
};

/** Wait for a JavaScript expression to be truthy; the render continues after `timeout`. */
export const WaitForFunctionSchema = closedObject(functionEntries);

const AuthenticationSchema = closedObject({
  username: StringSchema,
  password: StringSchema,
});

const pageEntries = {
  url: documented(v.nullish(publicHttpUrl()), { description: 'URL to visit, with its scheme (http or https). One of url, html, htmlTemplate is required on direct renders.' }),
  html: documented(v.nullish(base64Text(false)), { description: 'HTML to render, base64 encoded (UTF-8).' }),
  htmlTemplate: documented(v.nullish(base64Text(false)), { description: 'Handlebars HTML template, base64 encoded; rendered with templateData.' }),
  templateData: documented(
    v.nullish(
      v.pipe(JsonObjectSchema, v.check((data) => nestsWithin(data, MAX_JSON_DEPTH), `Must not be nested deeper than ${MAX_JSON_DEPTH} levels`)),
    ),
    { description: `Data for htmlTemplate (a JSON object, nested at most ${MAX_JSON_DEPTH} levels); only together with htmlTemplate.` },
  ),
  templateDataUrl: v.nullish(
    uploadOrHttpUrl(
      'template data URL',
      `Data for htmlTemplate by reference, instead of templateData, for data too large for a request body (issue 47): a JSON object of at most ${MAX_TEMPLATE_DATA_URL_BYTES / 1024 / 1024} MB ` +
        `(nested at most ${MAX_JSON_DEPTH} levels), read when the render runs (an async job's when it starts) from s3://<the service's files bucket>/uploads/<your account id>/<key> ` +
        'or from an http(s) URL through the same network rules as page.url (no redirects). A file that cannot be read, too large or no JSON object is a 400 on page.templateDataUrl (an async job ends FAILED with it). Only together with htmlTemplate.',
    ),
  ),
  waitUntil: documented(v.nullish(oneOf(['auto', 'load', 'domcontentloaded', 'networkidle0', 'networkidle2'])), { default: RENDER_DEFAULTS.page.waitUntil }),
  waitForMilliseconds: v.nullish(numberBetween(0, 5000)),
  waitForSelector: v.nullish(WaitForSelectorSchema),
  waitForFunction: v.nullish(WaitForFunctionSchema),
  headers: v.nullish(PageHeadersSchema),
  adblock: documented(v.nullish(BooleanSchema), { default: RENDER_DEFAULTS.page.adblock }),
  javascript: documented(v.nullish(BooleanSchema), { default: RENDER_DEFAULTS.page.javascript }),
  cookies: v.nullish(v.array(CookieSchema, 'Must be an array')),
  authentication: v.nullish(AuthenticationSchema),
  // interface.md's only rule is the length: a 20-character value is valid input. Chromium emulates
  // light, dark and no-preference and keeps its default (light) for any other value, so a value is
  // passed on as given rather than refused.
  colorScheme: documented(v.nullish(v.pipe(StringSchema, maxCharacters(20, 'Must be at most 20 characters'))), {
    description: 'prefers-color-scheme to emulate: light, dark or no-preference (at most 20 characters).',
  }),
  mediaType: v.nullish(oneOf(['screen', 'print'])),
  timezone: v.nullish(TimeZoneSchema),
};

/**
 * The fields of `page`, each checked on its own. Which page source must be
 * present is decided per endpoint (see render-requests.ts).
 */
export const PageOptionsSchema = closedObject(pageEntries);

/**
 * `page` of a template render: merged key by key over the stored page, so
 * the required fields of nested objects may come from the template.
 */
export const PageOverridesSchema = closedObject({
  ...pageEntries,
  waitForSelector: v.nullish(closedObject({ ...selectorEntries, selector: v.nullish(selectorEntries.selector) })),
  waitForFunction: v.nullish(
    closedObject({ ...functionEntries, pageFunction: v.nullish(functionEntries.pageFunction) }),
  ),
});

// ---------------------------------------------------------------------------
// screenshot
// ---------------------------------------------------------------------------

const DeviceNameSchema = v.pipe(
  StringSchema,
  v.check((name) => findDevice(name) !== undefined, 'Unknown device; see GET /v1/devices'),
  // The check above as the document's list of names.
  v.metadata({ enum: listDevices().map((device) => device.name) }),
);

/**
 * A custom viewport. Omitted sizes fall back to the default device's CSS size
 * (1536×960) at scale factor 1; omitted booleans are false.
 */
const ViewportEntriesSchema = closedObject({
  width: v.nullish(integerBetween(1, MAX_IMAGE_PIXELS)),
  height: v.nullish(integerBetween(1, MAX_IMAGE_PIXELS)),
  deviceScaleFactor: v.nullish(numberBetween(0.1, MAX_SCALE_FACTOR)),
  isMobile: v.nullish(BooleanSchema),
  hasTouch: v.nullish(BooleanSchema),
  isLandscape: v.nullish(BooleanSchema),
});
type ViewportScale = Pick<v.InferOutput<typeof ViewportEntriesSchema>, 'width' | 'height' | 'deviceScaleFactor'>;

/** One side × deviceScaleFactor within the image pixel limit, reported on that side. */
function scaledSideRule(side: 'width' | 'height', label: string) {
  return v.forward<v.InferOutput<typeof ViewportEntriesSchema>, v.PartialCheckIssue<ViewportScale>, [typeof side]>(
    v.partialCheck(
      [[side], ['deviceScaleFactor']],
      (viewport: ViewportScale) => (viewport[side] ?? VIEWPORT_FALLBACK[side]) * (viewport.deviceScaleFactor ?? 1) <= MAX_IMAGE_PIXELS,
      `${label} × deviceScaleFactor must be at most ${MAX_IMAGE_PIXELS} pixels`,
    ),
    [side],
  );
}

export const ViewportSchema = v.pipe(ViewportEntriesSchema, scaledSideRule('width', 'Width'), scaledSideRule('height', 'Height'));

// A clip's offset stays within the furthest a Chromium page extends (its layout unit's range, 2^25 CSS
// pixels), and its sides are a pixel at least (puppeteer rounds the region): beyond either, the capture
// fails inside Chromium and the render would end in a 500.
const MAX_CLIP_OFFSET = 33_554_431;
const clipEntries = {
  x: numberBetween(0, MAX_CLIP_OFFSET),
  y: numberBetween(0, MAX_CLIP_OFFSET),
  width: numberBetween(1, MAX_IMAGE_PIXELS),
  height: numberBetween(1, MAX_IMAGE_PIXELS),
  scale: v.nullish(positiveNumberUpTo(MAX_SCALE_FACTOR)),
};

/** Region to capture, in CSS pixels. x, y, width and height are required: a region needs all four. */
export const ClipSchema = closedObject(clipEntries);

/** Frame composed around the screenshot (decisions.md "Smart defaults"). */
export const OverlaySchema = closedObject({
  background: v.nullish(BackgroundSchema),
  filter: documented(v.nullish(CssFilterSchema), { description: 'CSS filter applied to the background (not the screenshot), e.g. blur(4px).' }),
  margin: v.nullish(numberBetween(0, MAX_OVERLAY_PX)),
  browser: v.nullish(oneOf(['light', 'dark'])),
  screenshotBorderRadius: v.nullish(numberBetween(0, MAX_OVERLAY_PX)),
});

const screenshotEntries = {
  type: documented(v.nullish(oneOf(['png', 'jpeg', 'webp'])), { default: RENDER_DEFAULTS.screenshot.type }),
  device: documented(v.nullish(DeviceNameSchema), { default: RENDER_DEFAULTS.screenshot.device, description: 'A preset name from GET /v1/devices; ignored when viewport is given.' }),
  viewport: v.nullish(ViewportSchema),
  fullPage: documented(v.nullish(BooleanSchema), { default: RENDER_DEFAULTS.screenshot.fullPage }),
  fromSurface: documented(v.nullish(BooleanSchema), { default: RENDER_DEFAULTS.screenshot.fromSurface }),
  omitBackground: documented(v.nullish(BooleanSchema), { default: RENDER_DEFAULTS.screenshot.omitBackground }),
  optimizeForSpeed: documented(v.nullish(BooleanSchema), { default: RENDER_DEFAULTS.screenshot.optimizeForSpeed }),
  quality: v.nullish(integerBetween(0, 100)),
  captureBeyondViewport: documented(v.nullish(BooleanSchema), {
    default: RENDER_DEFAULTS.screenshot.captureBeyondViewport.viewport,
    description: CAPTURE_BEYOND_VIEWPORT_DEFAULTS,
  }),
  clip: v.nullish(ClipSchema),
  element: v.nullish(textBetween(1, MAX_SELECTOR_LENGTH)),
  overlay: v.nullish(OverlaySchema),
  missingGlyphs: documented(v.nullish(MissingGlyphsSchema), {
    default: MISSING_GLYPHS_DEFAULT,
    description: 'Characters no font draws (shown blank or as a box): "report" names them in the answer (X-Missing-Glyphs, missingGlyphs), "fail" refuses the render with a 422 naming them, not charged.',
  }),
};

/** Screenshot options with their cross-field rules (quality vs png, overlay vs fullPage). */
export const ScreenshotOptionsSchema = v.pipe(
  closedObject(screenshotEntries),
  v.forward(
    v.partialCheck(
      [['type'], ['quality']],
      (screenshot) => screenshot.quality == null || (screenshot.type ?? 'png') !== 'png',
      'Not applicable to png',
    ),
    ['quality'],
  ),
  v.forward(
    v.partialCheck(
      [['overlay'], ['fullPage']],
      (screenshot) => screenshot.overlay == null || screenshot.fullPage !== true,
      'Cannot be used together with fullPage',
    ),
    ['overlay'],
  ),
  // The two rules above in the OpenAPI document's words.
  v.metadata({
    allOf: [
      {
        if: { required: ['quality'], properties: { quality: { type: 'number' } } },
        then: { required: ['type'], properties: { type: { enum: ['jpeg', 'webp'] } } },
      },
      {
        if: { required: ['overlay'], properties: { overlay: { type: 'object' } } },
        then: { properties: { fullPage: { not: { const: true } } } },
      },
    ],
  }),
);

/**
 * `screenshot` of a template render: merged over the stored options, so the
 * cross-field rules wait for the merge and `clip` may be partial.
 */
export const ScreenshotOverridesSchema = closedObject({
  ...screenshotEntries,
  clip: v.nullish(
    closedObject({
      ...clipEntries,
      x: v.nullish(clipEntries.x),
      y: v.nullish(clipEntries.y),
      width: v.nullish(clipEntries.width),
      height: v.nullish(clipEntries.height),
    }),
  ),
});

// ---------------------------------------------------------------------------
// pdf, storage, webhook
// ---------------------------------------------------------------------------

const PdfMarginSchema = closedObject({
  top: v.nullish(paperLength(true)),
  bottom: v.nullish(paperLength(true)),
  left: v.nullish(paperLength(true)),
  right: v.nullish(paperLength(true)),
});

/** The HTML of a band: a whole document as `html` (base64), or a Handlebars `htmlTemplate` (base64) filled per page. */
const bandSourceEntries = {
  html: documented(v.nullish(base64Text(false)), {
    description: 'Base64 HTML document; elements with the classes pageNumber, totalPages, title, date, url, section are filled in per page.',
  }),
  htmlTemplate: documented(v.nullish(base64Text(false)), {
    description:
      "Base64 Handlebars template of the document, rendered per page with pageNumber, totalPages, title, date (in page.timezone, else UTC), url, section, beside the render's templateData (a band variable wins on a name both have).",
  }),
};

/** Exactly one of html and htmlTemplate, the error on html. */
function oneBandSource<T extends object>() {
  return v.rawCheck<T>(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const input = dataset.value as Record<string, unknown>;
    if ((input.html != null) === (input.htmlTemplate != null)) {
      addIssue({ message: 'Give exactly one of html and htmlTemplate', path: [{ type: 'object', origin: 'value', input, key: 'html', value: input.html }] });
    }
  });
}

export const BandVariantSchema = v.pipe(closedObject(bandSourceEntries), oneBandSource());

/**
 * A running header or footer (`pdf.header`, `pdf.footer`): real HTML printed
 * by the service's Chromium like a page, then laid on the body pages.
 */
export const BandSchema = v.pipe(
  closedObject({
    ...bandSourceEntries,
    height: documented(v.nullish(paperLength(false)), { default: BAND_DEFAULT_HEIGHT, description: 'Height of the band: CSS pixels, or a string with a unit (px, in, cm, mm).' }),
    pages: documented(v.nullish(PageRangesSchema), { description: 'Pages that carry the band (pageRanges syntax); all when absent.' }),
    firstPage: documented(v.nullish(BandVariantSchema), { description: 'Replaces the band on the first page (a cover): { html } or { htmlTemplate }.' }),
    evenPages: documented(v.nullish(BandVariantSchema), { description: 'Replaces the band on even pages (book spreads): { html } or { htmlTemplate }.' }),
  }),
  oneBandSource(),
);

/**
 * A band (header or footer) and Chromium's header and footer
 * (`displayHeaderFooter`, `headerHtml`, `footerHtml`) are two kinds of
 * header: one kind per document, or one would print over the other.
 */
const BAND_KINDS: FieldConflict = {
  when: [
    { anyOf: [{ field: 'header', given: true }, { field: 'footer', given: true }] },
    { anyOf: [{ field: 'displayHeaderFooter', given: true }, { field: 'headerHtml', given: true }, { field: 'footerHtml', given: true }] },
  ],
  message: ([bands, chromium]) => `${bands!.join(' and ')} cannot be combined with ${chromium!.join(', ')}: give one kind of header and footer`,
};

/** The running header and footer, and the headings their section is read from: a render's, or a merge's over the merged pages. */
export const BAND_ENTRIES = {
  header: documented(v.nullish(BandSchema), { description: 'A running header printed from real HTML (stylesheets, web fonts, images, scripts); not with displayHeaderFooter, headerHtml or footerHtml.' }),
  footer: documented(v.nullish(BandSchema), { description: 'A running footer; as header.' }),
  sectionHeadings: documented(v.nullish(v.pipe(StringSchema, v.minLength(1, 'Must not be empty'), v.maxLength(200, 'Must be at most 200 characters'))), {
    default: SECTION_HEADINGS_DEFAULT,
    description: "CSS selector of the headings whose text is a band's section: the last one starting on or before the page.",
  }),
};

/**
 * `pages` reorders the printed pages, so what counts the printed pages cannot
 * come with it: `pageRanges` (one selection is enough) and `toc` (its numbers
 * would name pages that moved).
 */
const PAGE_SELECTION: FieldConflict = {
  when: [{ field: 'pages', given: true }, { anyOf: [{ field: 'pageRanges', given: true }, { field: 'toc', given: true }] }],
  message: ([, counting]) => `pages cannot be combined with ${counting!.join(' and ')}: pages selects and orders the printed pages itself`,
};

/**
 * The options of `pdf` that say how a page is printed, and what only a print
 * can write (an outline and tags come from the page's structure, running
 * bands from the margins a print leaves them): refused on an existing PDF.
 */
export const PRINT_ENTRIES = {
  scale: documented(v.nullish(numberBetween(0.1, 2)), { default: RENDER_DEFAULTS.pdf.scale }),
  displayHeaderFooter: documented(v.nullish(BooleanSchema), { default: RENDER_DEFAULTS.pdf.displayHeaderFooter, description: 'headerHtml and footerHtml print only when this is true.' }),
  headerHtml: documented(v.nullish(base64Text(true)), { description: 'Base64 HTML print header; elements with the classes date, title, url, pageNumber, totalPages are filled in.' }),
  footerHtml: documented(v.nullish(base64Text(true)), { description: 'Base64 HTML print footer; same rules as headerHtml.' }),
  printBackground: documented(v.nullish(BooleanSchema), { default: RENDER_DEFAULTS.pdf.printBackground }),
  landscape: documented(v.nullish(BooleanSchema), { default: RENDER_DEFAULTS.pdf.landscape }),
  pageRanges: v.nullish(PageRangesSchema),
  format: documented(v.nullish(PaperFormatSchema), { default: RENDER_DEFAULTS.pdf.format, description: 'Takes priority over width and height.' }),
  width: v.nullish(paperLength(false)),
  height: v.nullish(paperLength(false)),
  preferCSSPageSize: documented(v.nullish(BooleanSchema), { default: RENDER_DEFAULTS.pdf.preferCSSPageSize }),
  margin: documented(v.nullish(PdfMarginSchema), { description: 'Each side a number of CSS pixels or a string with a unit (px, in, cm, mm).' }),
  omitBackground: documented(v.nullish(BooleanSchema), { default: RENDER_DEFAULTS.pdf.omitBackground }),
  outline: documented(v.nullish(BooleanSchema), { default: RENDER_DEFAULTS.pdf.outline }),
  tagged: documented(v.nullish(BooleanSchema), { default: RENDER_DEFAULTS.pdf.tagged }),
  ...BAND_ENTRIES,
  missingGlyphs: documented(v.nullish(MissingGlyphsSchema), {
    default: MISSING_GLYPHS_DEFAULT,
    description:
      'Characters the printed PDF draws with no glyph (blank, or a box): "report" names them in the answer (X-Missing-Glyphs header, missingGlyphs field), "fail" refuses the render with a 422 naming them, not charged. Covers the page, headerHtml/footerHtml, bands and a text stamp.',
  }),
  toc: documented(v.nullish(BooleanSchema), {
    default: false,
    description:
      'Fill the table of contents: elements with data-toc-page="#anchor" (or <a class="toc-page" href="#anchor">) get the page #anchor lands on; printed up to 3 times until the numbers are stable. An anchor not in the document leaves its entry empty.',
  }),
};

/** The fields of the PDF options: the print's, then every finishing step's (lib/finishing/pipeline/finishing-options.ts). */
const PdfOptionsObjectSchema = closedObject({ ...PRINT_ENTRIES, ...FINISHING_ENTRIES });

/**
 * PDF options. The only rules between fields are inside this object (the
 * finishing steps', and the print's own), so templates reuse it as is.
 */
export const PdfOptionsSchema = v.pipe(
  PdfOptionsObjectSchema,
  finishingRules<v.InferOutput<typeof PdfOptionsObjectSchema>>('render'),
  fieldRules({ conflicts: [BAND_KINDS, PAGE_SELECTION] }),
);

/** Where the caller wants the file uploaded (HTTP PUT to a pre-signed URL). */
export const StorageOptionsSchema = closedObject({
  preSignedUrl: publicHttpUrl('pre-signed URL'),
});

/** String values the caller attaches (a webhook's, a batch item's) and gets back as given. */
export const MetadataSchema = v.pipe(
  StringRecordSchema,
  v.check((metadata) => Buffer.byteLength(JSON.stringify(metadata)) <= MAX_METADATA_BYTES, `Must be at most ${MAX_METADATA_BYTES} bytes as JSON`),
);

/** The webhook called when an async job ends. */
export const WebhookOptionsSchema = closedObject({
  url: publicHttpUrl('webhook URL'),
  receiveType: documented(v.nullish(oneOf(['base64', 'URL'])), { default: RENDER_DEFAULTS.webhook.receiveType }),
  method: documented(v.nullish(oneOf(['POST', 'PUT'])), { default: RENDER_DEFAULTS.webhook.method }),
  headers: v.nullish(WebhookHeadersSchema),
  metadata: v.nullish(MetadataSchema),
});

// ---------------------------------------------------------------------------
// Types
// ---------------------------------------------------------------------------

export type PageOptionsInput = v.InferInput<typeof PageOptionsSchema>;
export type PageOptionsOutput = v.InferOutput<typeof PageOptionsSchema>;
export type PageOverridesInput = v.InferInput<typeof PageOverridesSchema>;
export type PageOverridesOutput = v.InferOutput<typeof PageOverridesSchema>;
export type CookieInput = v.InferInput<typeof CookieSchema>;
export type CookieOutput = v.InferOutput<typeof CookieSchema>;
export type WaitForSelectorInput = v.InferInput<typeof WaitForSelectorSchema>;
export type WaitForSelectorOutput = v.InferOutput<typeof WaitForSelectorSchema>;
export type WaitForFunctionInput = v.InferInput<typeof WaitForFunctionSchema>;
export type WaitForFunctionOutput = v.InferOutput<typeof WaitForFunctionSchema>;
export type PdfOptionsInput = v.InferInput<typeof PdfOptionsSchema>;
export type PdfOptionsOutput = v.InferOutput<typeof PdfOptionsSchema>;
export type BandOutput = v.InferOutput<typeof BandSchema>;
export type BandVariantOutput = v.InferOutput<typeof BandVariantSchema>;
export type ScreenshotOptionsInput = v.InferInput<typeof ScreenshotOptionsSchema>;
export type ScreenshotOptionsOutput = v.InferOutput<typeof ScreenshotOptionsSchema>;
export type ScreenshotOverridesInput = v.InferInput<typeof ScreenshotOverridesSchema>;
export type ScreenshotOverridesOutput = v.InferOutput<typeof ScreenshotOverridesSchema>;
export type ViewportInput = v.InferInput<typeof ViewportSchema>;
export type ViewportOutput = v.InferOutput<typeof ViewportSchema>;
export type ClipInput = v.InferInput<typeof ClipSchema>;
export type ClipOutput = v.InferOutput<typeof ClipSchema>;
export type OverlayInput = v.InferInput<typeof OverlaySchema>;
export type OverlayOutput = v.InferOutput<typeof OverlaySchema>;
export type StorageOptionsInput = v.InferInput<typeof StorageOptionsSchema>;
export type StorageOptionsOutput = v.InferOutput<typeof StorageOptionsSchema>;
export type WebhookOptionsInput = v.InferInput<typeof WebhookOptionsSchema>;
export type WebhookOptionsOutput = v.InferOutput<typeof WebhookOptionsSchema>;
