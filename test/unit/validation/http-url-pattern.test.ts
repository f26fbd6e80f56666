import assert from 'node:assert/strict';
import { urlToHttpOptions } from 'node:url';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import * as v from 'valibot';
import { createEgressPolicy, useEgressPolicy } from '../../../lib/net/egress-policy.js';
import { HTTP_URL_PATTERN, IDN_LETTERS, IDN_MARKS, matchesHttpUrlPattern, S3_KEY_PATTERN } from '../../../lib/validation/http-url-pattern.js';
import { httpUrl, publicHttpUrl } from '../../../lib/validation/http-url.js';

const PUNYCODE_MESSAGE = 'The host is not a valid domain name (a label starting xn-- must be valid punycode)';

/** What Node makes of a URL the service has trimmed: whether `new URL()` and its HTTP client take it. */
function nodeTakes(url: string): boolean {
  try {
    urlToHttpOptions(new URL(url.trim()));
    return true;
  } catch {
    return false;
  }
}

/** Whether a host of the URL (as written) has a label starting `xn--`: punycode, which no pattern can check. */
const hasPunycodeLabel = (url: string) => /(?:\/\/|@|\.)[Xx][Nn]--/.test(url);

/** The code points of a class body written with `\uXXXX` escapes and ranges. */
function codePointsOf(classBody: string): number[] {
  const points: number[] = [];
  for (const [, from, to] of classBody.matchAll(/\\u([0-9a-f]{4})(?:-\\u([0-9a-f]{4}))?/g)) {
    for (let point = parseInt(from!, 16); point <= parseInt(to ?? from!, 16); point += 1) points.push(point);
  }
  return points;
}

const pick = <T>(...values: T[]) => fc.constantFrom(...values);
const joined = (unit: fc.Arbitrary<string>, maxLength: number) => fc.array(unit, { maxLength }).map((parts) => parts.join(''));

/** Mostly what a caller writes, sometimes a near miss: both sides of every rule get tried. */
const often = <T>(usual: fc.Arbitrary<T>, odd: fc.Arbitrary<T>) => fc.oneof({ arbitrary: usual, weight: 4 }, { arbitrary: odd, weight: 1 });

const WHITESPACE = often(pick('', '', '', ' ', '\t', '\n', '\u00a0', '\u2028', '\ufeff', '\u3000'), pick('\u001c', '\u0085', '\u200b', '\u0000'));
const SCHEME = often(
  pick('http://', 'https://', 'HTTPS://', 'hTtP://'),
  pick('http:', 'http:/', 'http:///', 'http:\\\\', 'ftp://', 'file://', 'ht\ttp://', '', 'javascript:', 's3://', 'http//'),
);
const HEX_DIGITS = joined(pick('0', '1', 'a', 'F', 'e'), 4).filter((group) => group !== '');
const USERINFO = fc.oneof(
  { arbitrary: pick(''), weight: 3 },
  {
    arbitrary: joined(
      often(pick('u', 'A', ':', '%41', '%c3%a9', '%f0%9f%98%80', 'é', '!', '[', '~'), pick('%', '%zz', '%ff', '%e0%80%80', '%ed%a0%80', ' ', '@', '\ud800', '/', '\\')),
      5,
    ).map((user) => `${user}@`),
    weight: 1,
  },
);
const LABEL_UNIT = often(
  pick('a', 'Z', 'x', 'X', '0', '1', '9', 'f', '-', '_', 'ü', 'ß', 'я', 'ά', '中', 'カ', '한', 'क', '\u093e', 'ก', '\u0e31'),
  pick('xn--', 'XN--', 'ſ', 'ｘ', '\u212a', 'א', 'ب', '\u0301', '\u200d', '\ufe0f', '%', '%41', '!', '*', '~', '\u00a0', '×', '\ud800', '\u3002', '１', ''),
);
const LABEL = fc.array(LABEL_UNIT, { minLength: 1, maxLength: 5 }).map((units) => units.join(''));
const DOMAIN = fc
  .array(LABEL, { minLength: 1, maxLength: 4 })
  .chain((labels) => often(pick(labels.join('.')), pick(`${labels.join('.')}.`, `.${labels.join('.')}`, `${labels.join('..')}`)));
const OCTET = often(fc.integer({ min: 0, max: 255 }).map(String), pick('256', '999', '00', '010', '08', '0x7f', ''));
const IPV4 = often(fc.array(OCTET, { minLength: 4, maxLength: 4 }), fc.array(OCTET, { minLength: 1, maxLength: 5 })).map((parts) => parts.join('.'));
const IPV6 = fc
  .tuple(fc.array(HEX_DIGITS, { maxLength: 8 }), fc.boolean(), fc.array(HEX_DIGITS, { maxLength: 8 }), often(pick(''), fc.oneof(IPV4, pick('%25eth0', 'g'))))
  .map(([left, compressed, right, tail]) => {
    const groups = compressed ? `${left.join(':')}::${right.join(':')}` : [...left, ...right].join(':');
    return `[${groups}${tail && !groups.endsWith(':') ? ':' : ''}${tail}]`;
  });
const HOST = fc.oneof(
  { arbitrary: DOMAIN, weight: 5 },
  { arbitrary: IPV4, weight: 2 },
  { arbitrary: IPV6, weight: 2 },
  { arbitrary: pick('', 'localhost', '127.0.0.1', '[::1]', 'example.com', 'a.1', '1.2.3.4.5'), weight: 1 },
);
const PORT = often(
  pick('', '', '', ':0', ':443', ':65535', ':8080'),
  fc.oneof(pick(':', ':65536', ':080', ':99999', ':-1', ':a'), fc.integer({ min: 0, max: 70_000 }).map((port) => `:${port}`)),
);
const REST = joined(
  often(pick('/', '/', '?', '#', 'a', ' ', 'é', '%41', '\ud83d\ude00', '<', '\\', '\u00a0', '\u2028'), pick('%', '%zz', '\ud800', '\u0000', '\u007f', '\u0085', '\t')),
  6,
);

/** URL-ish strings: mostly near the edge of what parses, so both sides of every rule are tried. */
const URLISH = fc
  .tuple(WHITESPACE, SCHEME, USERINFO, HOST, PORT, REST, WHITESPACE)
  .map((parts) => parts.join(''));

describe('HTTP_URL_PATTERN', () => {
  // Syntax only: the egress policy lets every address through, as ALLOW_PRIVATE_HOSTS could.
  before(() => useEgressPolicy(createEgressPolicy({ allowPrivateHosts: ['0.0.0.0/0', '::/0', 'localhost'] })));
  after(() => useEgressPolicy(createEgressPolicy()));

  it('matches exactly the URLs the service takes, so the OpenAPI document and the service agree', () => {
    // Prepare
    const schema = publicHttpUrl();

    fc.assert(
      fc.property(URLISH, (url) => {
        // Act
        const matches = HTTP_URL_PATTERN.test(url);
        const parsed = v.safeParse(schema, url);

        // Assess
        if (matches && !parsed.success) {
          assert.ok(hasPunycodeLabel(url), `${JSON.stringify(url)} matches, refused: ${parsed.issues[0].message}`);
          assert.equal(parsed.issues[0].message, PUNYCODE_MESSAGE);
        } else {
          assert.equal(parsed.success, matches, JSON.stringify(url));
        }
        if (matches && !hasPunycodeLabel(url)) assert.ok(nodeTakes(url), `${JSON.stringify(url)} matches but Node refuses it`);
      }),
      { numRuns: 20_000, seed: 45 },
    );
  });

  it('never matches what Node refuses, whatever it is given', () => {
    fc.assert(
      fc.property(URLISH, (url) => {
        if (HTTP_URL_PATTERN.test(url) && !hasPunycodeLabel(url)) assert.ok(nodeTakes(url), JSON.stringify(url));
        // The service's linear-time test of the same pattern (trimmed, unpadded) gives the same answer.
        assert.equal(matchesHttpUrlPattern(url), HTTP_URL_PATTERN.test(url), JSON.stringify(url));
      }),
      { numRuns: 20_000, seed: 4545 },
    );
  });

  for (const [url, accepted] of [
    ['0', false],
    ['http:', false],
    ['http://', false],
    ['http://1.2.3.999/', false],
    ['http://a.1/', false],
    ['http://a.0x1f/', false],
    ['http://0ｘ1/', false],
    ['http://user%zz@host/', false],
    ['http://user%ff@host/', false],
    ['http://[1:2:3:4:5:6::7:8]/', false],
    ['http://a..b/', false],
    ['http://example.com:65536/', false],
    ['http://exa mple.com/', false],
    ['HTTPS://Example.COM:443/a?b#c', true],
    [' https://x.y ', true],
    ['\u00a0https://x.y/\u2028\n', true],
    ['http://user:p%C3%A9ss:word@host/', true],
    ['http://a_b/', true],
    ['https://bücher.example/', true],
    ['https://xn--bcher-kva.example/', true],
    ['https://例え.テスト/パス', true],
    ['http://a.0x1g/', true],
    ['http://127.0.0.1:8080/', true],
    ['http://[2001:db8::1.2.3.4]/', true],
    ['https://example.com/a b?c d#e f', true],
    ['https://example.com./', true],
  ] as const) {
    it(`${accepted ? 'takes' : 'refuses'} ${JSON.stringify(url)}, as the service does`, () => {
      // Act
      const matches = HTTP_URL_PATTERN.test(url);
      const parsed = v.safeParse(publicHttpUrl(), url);

      // Assess
      assert.equal(matches, accepted);
      assert.equal(parsed.success, accepted, parsed.success ? '' : parsed.issues[0].message);
    });
  }

  it('refuses a malformed punycode label with a message naming it', () => {
    // Act
    const parsed = v.safeParse(httpUrl(), 'https://xn--abc.example/');

    // Assess
    assert.equal(HTTP_URL_PATTERN.test('https://xn--abc.example/'), true);
    assert.equal(parsed.success, false);
    assert.equal(parsed.issues?.[0].message, PUNYCODE_MESSAGE);
  });

  it('names the common mistakes rather than the pattern', () => {
    const messageOf = (url: string) => v.safeParse(httpUrl('webhook URL'), url).issues?.[0].message;

    assert.match(messageOf('0') ?? '', /^Must be an absolute webhook URL including the scheme/);
    assert.equal(messageOf('ftp://example.com/'), 'Only http and https URLs are allowed');
    assert.equal(messageOf('java\tscript:alert(1)'), 'Only http and https URLs are allowed');
    assert.equal(messageOf('http://a\u0000b/'), 'Must not contain control characters');
    assert.equal(messageOf('http:example.com'), 'Must start with http:// and a host');
    assert.match(messageOf('http://user%zz@host/') ?? '', /malformed percent escape/);
    assert.match(messageOf('http://1.2.3.999/') ?? '', /IPv4 address \(four numbers 0-255\)/);
  });

  it('takes every IDN letter and mark where Node takes it, and Node keeps each one non-ASCII', () => {
    // Prepare: a letter or mark that Node refused, or turned into ASCII, would let the pattern take a refused host.
    const nonAscii = (url: string) => new URL(url).hostname.split('.').every((label) => label.startsWith('xn--'));

    // Act and Assess
    for (const point of codePointsOf(IDN_LETTERS)) {
      const letter = String.fromCodePoint(point);
      for (const url of [`http://${letter}/`, `http://0${letter}/`, `http://${letter}a.${letter}/`]) {
        assert.ok(HTTP_URL_PATTERN.test(url) && nodeTakes(url) && nonAscii(url), `U+${point.toString(16)} in ${url}`);
      }
    }
    for (const point of codePointsOf(IDN_MARKS)) {
      const mark = String.fromCodePoint(point);
      for (const url of [`http://a${mark}/`, `http://1${mark}.-${mark}/`]) {
        assert.ok(HTTP_URL_PATTERN.test(url) && nodeTakes(url) && nonAscii(url), `U+${point.toString(16)} in ${url}`);
      }
      assert.equal(HTTP_URL_PATTERN.test(`http://${mark}a/`), false, 'a label does not start with a mark');
    }
  });
});

describe('S3_KEY_PATTERN', () => {
  it('counts a key in characters, as JSON Schema does', () => {
    const key = '\ud83d\ude00'.repeat(1024);

    assert.equal(S3_KEY_PATTERN.test(`s3://bucket/${key}`), true);
    assert.equal(S3_KEY_PATTERN.test(`s3://bucket/${key}a`), false);
    assert.equal(S3_KEY_PATTERN.test(` s3://my.bucket/k \n`), true);
  });
});
