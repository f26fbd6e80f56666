/**
 * Generators for fuzzing the API: request bodies shaped like the schemas,
 * mutations of valid requests, raw JSON texts the parser must survive, URLs
 * with every oddity of the WHATWG URL grammar, and random Handlebars
 * templates. Shared by the in-process fuzz tests and the smaller e2e run.
 */
import fc from 'fast-check';

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

// ---------------------------------------------------------------------------
// Scalars with a bias towards the values that break code
// ---------------------------------------------------------------------------

/** Numbers at the edges: huge, tiny, negative zero, unsafe integers, just past every limit in interface.md. */
export const edgyNumber = fc.oneof(
  fc.constantFrom(0, -0, -1, 1, 0.1, 2, 5000, 5001, 100, 101, 1024, 1025, 2 ** 31, 2 ** 53 + 1, -(2 ** 53) - 1, 1e308, -1e308, 5e-324, Number.MAX_VALUE, 65535, 65536),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);

/** Strings: unicode (astral, combining, RTL, zero-width), control characters, long, and look-alikes of valid values. */
export const edgyString = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('', ' ', '\u0000', '\u202e', '\u200b', 'e\u0301', '\ud83d\ude00', '\uffff', 'null', 'true', '0', '-1', 'NaN', '__proto__', 'constructor', 'toString', 'a4', 'A4', 'png ', 'POST', 'base64', 'URL', 'auto', 'x'.repeat(5000)),
);

/** Any JSON-ish value, nested a little, including objects named like prototype keys. */
export const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.oneof(edgyNumber, edgyString, fc.boolean(), fc.constant(null)) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.anything({ maxDepth: 2, withObjectString: true, withNullPrototype: true }) },
);

// ---------------------------------------------------------------------------
// URLs
// ---------------------------------------------------------------------------

const hexDigit = fc.constantFrom(...'0123456789abcdefABCDEF');
const notHex = fc.constantFrom(...'gGzZ%-_.~ ');
/** A percent escape, often malformed: `%4`, `%zz`, `%`, `%E0%A4` (a cut UTF-8 sequence), `%00`. */
const escape = fc.oneof(
  fc.tuple(hexDigit, hexDigit).map(([a, b]) => `%${a}${b}`),
  fc.tuple(hexDigit, notHex).map(([a, b]) => `%${a}${b}`),
  notHex.map((c) => `%${c}`),
  fc.constantFrom('%', '%E0%A4', '%C3', '%ED%A0%80', '%00', '%0a', '%25', '%2F', '%40', '%3A', '%FF%FE'),
);
const urlChar = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...'abcXYZ019-._~') },
  { weight: 2, arbitrary: escape },
  { weight: 2, arbitrary: fc.constantFrom(...'!$&\'()*+,;=:@/?#[]\\|^`{}<>" \t\n') },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 2 }) },
);
const urlPiece = (maxLength: number) => fc.array(urlChar, { maxLength }).map((parts) => parts.join(''));

const userInfo = fc.oneof(
  fc.constant(''),
  urlPiece(6).map((user) => `${user}@`),
  fc.tuple(urlPiece(5), urlPiece(5)).map(([user, password]) => `${user}:${password}@`),
  fc.constantFrom('user%SZ@', 'u:p%@', '%E0%A4%A@', ':@', '@', '@@', 'a@b@', 'user:pass@'),
);

const host = fc.oneof(
  fc.constantFrom(
    'example.com', 'EXAMPLE.com.', 'xn--nxasmq6b.com', 'bücher.de', 'ß.de', '\u0661.com', 'faß.example', 'a.b.c.d.e.f.g',
    'xn--', 'xn--a', '-start.com', 'end-.com', '%65xample.com', 'exa%2Emple.com', 'ex%00ample.com', 'a..b', '.', '..',
    '127.0.0.1', '0x7f.1', '2130706433', '0177.0.0.1', '1.2.3.4.5', '256.0.0.1', '93.184.215.14', '0',
    '[::1]', '[::ffff:127.0.0.1]', '[2606:2800:21f:cb07:6820:80da:af6b:8b2c]', '[fe80::1%25eth0]', '[::1', 'host:99999',
    'localhost', 'x.localhost', 'a'.repeat(64) + '.com', `${'a.'.repeat(130)}com`, '\uff4c\uff4f\uff43\uff41\uff4c\uff48\uff4f\uff53\uff54',
    'a"b.com', 'a{b}.com', 'a!b$c.com', 'under_score.com', '\u00ad.com',
  ),
  fc.domain(),
  fc.ipV4().map(String),
  fc.ipV4Extended(),
  fc.ipV6().map((ip) => `[${ip}]`),
  urlPiece(8),
);

const port = fc.oneof(
  fc.constant(''),
  fc.constantFrom(':', ':0', ':80', ':443', ':65535', ':65536', ':-1', ':08080', ':1e3', ':99999999999', ': 80', ':0x50'),
  fc.integer({ min: 0, max: 70_000 }).map((p) => `:${p}`),
);

const scheme = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('http://', 'https://') },
  { weight: 2, arbitrary: fc.constantFrom('HTTP://', 'hTtPs://', 'http:', 'http:/', 'http:\\\\', 'https:///', ' https://', '\thttps://', 'http://\n') },
  { weight: 1, arbitrary: fc.constantFrom('file://', 'ftp://', 'ws://', 'javascript:', 'data:', 'blob:http://', 'view-source:http://', '//', '') },
);

/** URLs in every odd spelling the WHATWG grammar allows (and some it does not). */
export const oddUrl = fc
  .tuple(scheme, userInfo, host, port, urlPiece(10), fc.option(urlPiece(8)), fc.option(urlPiece(6)))
  .map(([s, u, h, p, path, query, fragment]) => `${s}${u}${h}${p}/${path}${query === null ? '' : `?${query}`}${fragment === null ? '' : `#${fragment}`}`);

// ---------------------------------------------------------------------------
// Handlebars
// ---------------------------------------------------------------------------

const hbsName = fc.constantFrom('name', 'items', 'this', '.', '..', '@index', '@root', '../x', 'a.b.c', '__proto__', 'constructor', 'toString', '[weird key]', 'x/y', 'lookup', 'log', '@key', '@first', 'undefinedHelper', 'helperMissing', '');
const hbsToken = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('<p>', '</p>', 'text ', '<b>', '\n', '{', '}', '\\{{', '{{{{', '}}}}', '{{', '}}', '{{{', '}}}', '{{~', '~}}', '{{else}}', '{{^}}', '{{/if}}', '{{/each}}', '{{/with}}', '{{/unless}}', '{{!-- c --}}', '{{! c }}', '{{>', '{{#>', '{{*', '{{&', '"', "'", '=', '(', ')', '|') },
  { weight: 3, arbitrary: hbsName.map((n) => `{{${n}}}`) },
  { weight: 2, arbitrary: hbsName.map((n) => `{{{${n}}}}`) },
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom('if', 'each', 'with', 'unless', 'lookup', 'log', 'blockHelperMissing', 'partial', 'inline'), hbsName).map(([h, n]) => `{{#${h} ${n}}}`) },
  { weight: 1, arbitrary: fc.tuple(hbsName, hbsName).map(([a, b]) => `{{lookup ${a} ${b}}}`) },
  { weight: 1, arbitrary: fc.tuple(hbsName, hbsName).map(([a, b]) => `{{#each ${a} as |${b || 'v'}|}}`) },
  { weight: 1, arbitrary: fc.constantFrom('{{#*inline "p"}}x{{/inline}}', '{{> p}}', '{{#each (lookup this "x")}}', '{{(lookup . "constructor")}}', '{{{{raw}}}}{{x}}{{{{/raw}}}}', '{{#each items}}{{#each ../items}}{{#each ../../items}}x{{/each}}{{/each}}{{/each}}') },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 5 }) },
);

/** A Handlebars-ish template: well-formed sometimes, broken mostly, always worth compiling. */
export const handlebarsTemplate = fc.array(hbsToken, { maxLength: 25 }).map((tokens) => tokens.join(''));

/** Data for a template: names the templates use, with values that loop, nest and carry prototype names. */
export const templateData = fc.dictionary(
  fc.constantFrom('name', 'items', 'x', 'a', '__proto__', 'constructor', 'weird key', 'toString', 'b'),
  fc.oneof(anyValue, fc.array(anyValue, { maxLength: 20 }), fc.constant(Array.from({ length: 200 }, (_, i) => i))),
  { maxKeys: 5 },
);

// ---------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------

const html = b64('<html><body><h1>fuzz</h1></body></html>');

/** A valid request for each kind of endpoint, as a starting point for mutations. */
export const validRequests = {
  pdf: { page: { html, waitUntil: 'load' }, pdf: { format: 'a4', margin: { top: '1cm' }, scale: 1 } },
  screenshot: { page: { url: 'https://example.com/' }, screenshot: { type: 'jpeg', quality: 80, viewport: { width: 800, height: 600 } } },
  template: { page: { templateData: { name: 'x' } }, pdf: { landscape: true } },
  'pdf/async': { page: { htmlTemplate: b64('<p>{{name}}</p>'), templateData: { name: 'Ada' } }, webhook: { url: 'https://hooks.example.com/done', metadata: { order: '1' } }, storage: { preSignedUrl: 'https://bucket.example.com/k?X-Amz-Signature=1' } },
  'screenshot/async': { page: { html }, screenshot: { fullPage: true }, webhook: { url: 'https://hooks.example.com/done', method: 'PUT', receiveType: 'base64' } },
  'template/async': { page: { templateData: { a: 1 } }, webhook: { url: 'https://hooks.example.com/done' } },
  templates: { name: 'fuzz', variables: { page: { html }, pdf: { format: 'letter' } } },
  'templates/update': { name: 'renamed', variables: { page: { url: 'https://example.com/' } } },
} as const;

export type FuzzEndpoint = keyof typeof validRequests;

/** Every field name the schemas know, at every level: a generated key is often a real one. */
const KNOWN_KEYS = [
  'page', 'pdf', 'screenshot', 'storage', 'webhook', 'name', 'variables', 'output',
  'url', 'html', 'htmlTemplate', 'templateData', 'waitUntil', 'waitForMilliseconds', 'waitForSelector', 'waitForFunction',
  'headers', 'adblock', 'javascript', 'cookies', 'authentication', 'colorScheme', 'mediaType', 'timezone',
  'selector', 'options', 'pageFunction', 'visible', 'hidden', 'timeout', 'polling', 'username', 'password',
  'type', 'device', 'viewport', 'fullPage', 'fromSurface', 'omitBackground', 'optimizeForSpeed', 'quality', 'captureBeyondViewport',
  'clip', 'element', 'overlay', 'background', 'filter', 'margin', 'browser', 'screenshotBorderRadius', 'width', 'height',
  'deviceScaleFactor', 'isMobile', 'hasTouch', 'isLandscape', 'x', 'y', 'scale', 'displayHeaderFooter', 'headerHtml',
  'footerHtml', 'printBackground', 'landscape', 'pageRanges', 'format', 'preferCSSPageSize', 'top', 'bottom', 'left',
  'right', 'outline', 'tagged', 'preSignedUrl', 'receiveType', 'method', 'metadata', 'value', 'domain', 'path', 'secure',
  'httpOnly', 'sameSite', 'expires', '__proto__', 'constructor', 'prototype', 'PAGE', 'fullpage',
];
const key = fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...KNOWN_KEYS) }, { weight: 1, arbitrary: edgyString });

/** Objects built from the schemas' own field names with values of any type, nested like the schemas are. */
export const schemaShaped: fc.Arbitrary<unknown> = fc.letrec<{ node: unknown }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    anyValue,
    fc.dictionary(key, tie('node'), { maxKeys: 6 }),
    fc.array(tie('node'), { maxLength: 3 }),
    oddUrl,
  ),
})).node;

type Path = (string | number)[];

function pathsOf(value: unknown, prefix: Path = [], out: Path[] = []): Path[] {
  out.push(prefix);
  if (value && typeof value === 'object') {
    for (const [k, child] of Object.entries(value)) pathsOf(child, [...prefix, Array.isArray(value) ? Number(k) : k], out);
  }
  return out;
}

function setAt(root: unknown, path: Path, replace: (old: unknown) => unknown): unknown {
  if (path.length === 0) return replace(root);
  // An earlier mutation may have replaced a parent with a scalar: the path ends there.
  if (!root || typeof root !== 'object') return root;
  const [head, ...rest] = path;
  const copy = (Array.isArray(root) ? [...root] : { ...(root as object) }) as Record<string | number, unknown>;
  copy[head as string] = setAt((root as Record<string | number, unknown>)[head as string], rest, replace);
  return copy;
}

const DELETE = Symbol('delete');

/** One change to a valid request: a value of another type, a deleted or unknown key, a wrapped or odd value. */
const mutation = fc.oneof(
  anyValue.map((value) => () => value),
  oddUrl.map((url) => () => url),
  fc.constant(() => DELETE),
  fc.tuple(key, anyValue).map(([k, value]) => (old: unknown) => (old && typeof old === 'object' && !Array.isArray(old) ? { ...old, [k]: value } : old)),
  fc.constant((old: unknown) => [old]),
  fc.constant((old: unknown) => ({ value: old })),
  fc.constant((old: unknown) => (typeof old === 'string' && old.length < 10_000 ? old.repeat(300) : old)),
  fc.constant((old: unknown) => (typeof old === 'number' ? old * 1e300 : old)),
  fc.constant((old: unknown) => (typeof old === 'string' ? `${old}\u0000` : old)),
);

function dropDeleted(value: unknown): unknown {
  if (Array.isArray(value)) return value.filter((v) => v !== DELETE).map(dropDeleted);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== DELETE).map(([k, v]) => [k, dropDeleted(v)]));
  }
  return value;
}

/** A valid request with one to four mutations at random places. */
export function mutatedRequest(endpoint: FuzzEndpoint): fc.Arbitrary<unknown> {
  const base = validRequests[endpoint] as unknown;
  const paths = pathsOf(base);
  return fc
    .array(fc.tuple(fc.constantFrom(...paths), mutation), { minLength: 1, maxLength: 4 })
    .map((changes) => dropDeleted(changes.reduce((value, [path, change]) => setAt(value, path, change), base)));
}

/**
 * JSON texts that `JSON.stringify` cannot produce: duplicate keys, numbers
 * out of range (`1e999`), lone surrogates, deep nesting, a BOM, trailing
 * garbage, and texts that are not JSON at all.
 */
export function rawBody(endpoint: FuzzEndpoint): fc.Arbitrary<string> {
  const valid = JSON.stringify(validRequests[endpoint]);
  const inner = valid.slice(1, -1);
  return fc.oneof(
    fc.constantFrom(
      `{${inner},${inner}}`,
      `{"page":{"url":"https://a.example/"},${inner}}`,
      `{${inner},"page":null}`,
      `{${inner},"x":1e999}`,
      `{${inner},"page":{"waitForMilliseconds":1e999}}`,
      `{${inner},"pdf":{"scale":-1e-400}}`,
      `{"page":{"html":"\\ud800"}}`,
      `{"page":{"url":"https://\\udfff.example/"}}`,
      `{"name":"\\ud83d","variables":{}}`,
      `\ufeff${valid}`,
      `${valid}garbage`,
      `${valid}${valid}`,
      `[${valid}]`,
      '', 'null', 'true', '0', '""', '[]', '{}', '{', '}', '{"page":', '\u0000', '{"__proto__":{"polluted":1}}',
      `{"constructor":{"prototype":{"polluted":1}},${inner}}`,
      `{"page":${'['.repeat(5000)}${']'.repeat(5000)}}`,
      `{"page":{"templateData":${'{"a":'.repeat(3000)}1${'}'.repeat(3000)},"htmlTemplate":"${b64('{{a}}')}"}}`,
      `{"page":{"templateData":${'{"a":'.repeat(150)}1${'}'.repeat(150)},"htmlTemplate":"${b64('{{a.a.a}}')}"}}`,
      `{"page":{"headers":{${Array.from({ length: 2000 }, (_, i) => `"x-h${i}":"v"`).join(',')}}}}`,
    ),
    fc.string({ unit: 'binary', maxLength: 60 }),
    fc.tuple(fc.nat({ max: valid.length }), fc.string({ maxLength: 4 })).map(([at, text]) => valid.slice(0, at) + text + valid.slice(at)),
  );
}

/** A direct render request from a random Handlebars template and data (with `page.htmlTemplate`). */
export const handlebarsRequest = fc
  .tuple(handlebarsTemplate, templateData)
  .map(([template, data]) => ({ page: { htmlTemplate: b64(template), templateData: data } }));
