/**
 * The syntax of an http(s) URL the service takes, written once as a regular
 * expression: http-url.ts enforces it and the OpenAPI document states it
 * (the converter copies a `v.regex` into `pattern`). It is stricter than
 * WHATWG URL parsing on purpose: whatever it matches, once trimmed, also
 * parses with `new URL()` and can be handed to Node's HTTP client, so the
 * document never accepts a URL the service refuses for its syntax. The one
 * exception is punycode (a label `xn--…` must decode), which no regular
 * expression can check; test/api-fuzz/hooks.py names it.
 *
 * No flags: JSON Schema patterns take none, so every class is spelled with
 * explicit ranges and both cases of the scheme.
 */
import { JS_WHITESPACE } from './js-whitespace.js';

const WS = `[${JS_WHITESPACE}]*`;

/** `http://` or `https://`, in any case. WHATWG also reads `http:a` or `http:\\a`; nobody means those. */
const SCHEME = '[Hh][Tt][Tt][Pp][Ss]?://';

const HEX = '[0-9A-Fa-f]';
const CONTINUATION = '%[89ABab][0-9A-Fa-f]';

/**
 * A percent escape, or a run of them, that decodes to UTF-8: Node's HTTP
 * client runs `decodeURIComponent` on the user name and password
 * (`urlToHttpOptions`), which throws on `%zz`, a lone `%`, `%ff` or an
 * overlong or surrogate sequence.
 */
const PERCENT_UTF8 =
  `%[0-7]${HEX}` +
  `|%(?:[Cc][2-9A-Fa-f]|[Dd]${HEX})${CONTINUATION}` +
  `|%[Ee]0%[ABab]${HEX}${CONTINUATION}` +
  `|%(?:[Ee][1-9A-Ca-c]|[Ee][EFef])${CONTINUATION}${CONTINUATION}` +
  `|%[Ee][Dd]%[89][0-9A-Fa-f]${CONTINUATION}` +
  `|%[Ff]0%(?:[9ABab]${HEX})${CONTINUATION}${CONTINUATION}` +
  `|%[Ff][1-3]${CONTINUATION}${CONTINUATION}${CONTINUATION}` +
  `|%[Ff]4%8${HEX}${CONTINUATION}${CONTINUATION}`;

/**
 * `user:password@`: anything but what ends the authority (`/ \ ? #`), `@`,
 * spaces and controls; a `%` only as an escape that decodes. WHATWG
 * percent-encodes the rest (a second `:` included).
 */
const USERINFO = `(?:(?:[^\\u0000-\\u0020\\u007f%@/\\\\?#]|${PERCENT_UTF8})*@)?`;

/** 0–255 without leading zeros: WHATWG reads `010` as octal and refuses `08`. */
const OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])';
const IPV4 = `${OCTET}(?:\\.${OCTET}){3}`;

/** An IPv6 address as RFC 3986 writes it (WHATWG takes the same shapes; no zone identifier). */
const IPV6 = (() => {
  const h16 = `${HEX}{1,4}`;
  const ls32 = `(?:${h16}:${h16}|${IPV4})`;
  const before = (most: number) => (most < 0 ? '' : `(?:(?:${h16}:){0,${most}}${h16})?`);
  return [
    `(?:${h16}:){6}${ls32}`,
    `::(?:${h16}:){5}${ls32}`,
    `${before(0)}::(?:${h16}:){4}${ls32}`,
    `${before(1)}::(?:${h16}:){3}${ls32}`,
    `${before(2)}::(?:${h16}:){2}${ls32}`,
    `${before(3)}::${h16}:${ls32}`,
    `${before(4)}::${ls32}`,
    `${before(5)}::${h16}`,
    `${before(6)}::`,
  ].join('|');
})();

/**
 * Letters of internationalised domain names that WHATWG's UTS #46 processing
 * keeps as they are (or maps to another non-ASCII letter): Latin with its
 * accents and Vietnamese, Greek, Cyrillic, Armenian, the Indic scripts,
 * Thai, Lao, Georgian, kana, CJK ideographs and Hangul. Left out: letters
 * UTS #46 refuses, and those it maps to ASCII (`ſ` → `s`, fullwidth `ｘ` → `x`),
 * which could turn a name into a number (`0ｘ1` is the address 0.0.0.1).
 * Right-to-left scripts are left out too: a name that mixes them is held to
 * the Bidi rule, which no pattern can follow; such names are taken in their
 * `xn--` form. Derived from Node's URL parser and checked against it by
 * test/unit/validation/http-url-pattern.test.ts.
 */
export const IDN_LETTERS =
  '\\u00c0-\\u00d6\\u00d8-\\u00f6\\u00f8-\\u0131\\u0134-\\u017e\\u0180-\\u01c6\\u01cd-\\u01f0\\u01f4-\\u024f\\u0370-\\u0374\\u0376\\u0377' +
  '\\u037b-\\u037d\\u037f\\u0386\\u0388-\\u038a\\u038c\\u038e-\\u03a1\\u03a3-\\u03f5\\u03f7-\\u0481\\u048a-\\u04bf\\u04c1-\\u04ff\\u0531-\\u0556' +
  '\\u0559\\u0560-\\u0588\\u0904-\\u0939\\u093d\\u0950\\u0958-\\u0961\\u0971-\\u0980\\u0985-\\u098c\\u098f\\u0990\\u0993-\\u09a8\\u09aa-\\u09b0' +
  '\\u09b2\\u09b6-\\u09b9\\u09bd\\u09ce\\u09dc\\u09dd\\u09df-\\u09e1\\u09f0\\u09f1\\u09fc\\u0a05-\\u0a0a\\u0a0f\\u0a10\\u0a13-\\u0a28\\u0a2a-\\u0a30' +
  '\\u0a32\\u0a33\\u0a35\\u0a36\\u0a38\\u0a39\\u0a59-\\u0a5c\\u0a5e\\u0a72-\\u0a74\\u0a85-\\u0a8d\\u0a8f-\\u0a91\\u0a93-\\u0aa8\\u0aaa-\\u0ab0' +
  '\\u0ab2\\u0ab3\\u0ab5-\\u0ab9\\u0abd\\u0ad0\\u0ae0\\u0ae1\\u0af9\\u0b05-\\u0b0c\\u0b0f\\u0b10\\u0b13-\\u0b28\\u0b2a-\\u0b30\\u0b32\\u0b33' +
  '\\u0b35-\\u0b39\\u0b3d\\u0b5c\\u0b5d\\u0b5f-\\u0b61\\u0b71\\u0b83\\u0b85-\\u0b8a\\u0b8e-\\u0b90\\u0b92-\\u0b95\\u0b99\\u0b9a\\u0b9c\\u0b9e' +
  '\\u0b9f\\u0ba3\\u0ba4\\u0ba8-\\u0baa\\u0bae-\\u0bb9\\u0bd0\\u0c05-\\u0c0c\\u0c0e-\\u0c10\\u0c12-\\u0c28\\u0c2a-\\u0c39\\u0c3d\\u0c58-\\u0c5a' +
  '\\u0c5d\\u0c60\\u0c61\\u0c80\\u0c85-\\u0c8c\\u0c8e-\\u0c90\\u0c92-\\u0ca8\\u0caa-\\u0cb3\\u0cb5-\\u0cb9\\u0cbd\\u0cdd\\u0cde\\u0ce0\\u0ce1' +
  '\\u0cf1\\u0cf2\\u0d04-\\u0d0c\\u0d0e-\\u0d10\\u0d12-\\u0d3a\\u0d3d\\u0d4e\\u0d54-\\u0d56\\u0d5f-\\u0d61\\u0d7a-\\u0d7f\\u0d85-\\u0d96' +
  '\\u0d9a-\\u0db1\\u0db3-\\u0dbb\\u0dbd\\u0dc0-\\u0dc6\\u0e01-\\u0e30\\u0e32\\u0e40-\\u0e46\\u0e81\\u0e82\\u0e84\\u0e86-\\u0e8a\\u0e8c-\\u0ea3' +
  '\\u0ea5\\u0ea7-\\u0eb0\\u0eb2\\u0ebd\\u0ec0-\\u0ec4\\u0ec6\\u0edc-\\u0edf\\u10c7\\u10cd\\u10d0-\\u10fa\\u10fc-\\u10ff\\u1e00-\\u1e9d' +
  '\\u1e9f-\\u1eff\\u3041-\\u3096\\u309d-\\u309f\\u30a1-\\u30fa\\u30fc-\\u30ff\\u4e00-\\u9fff\\uac00-\\ud7a3';

/**
 * Combining marks of those scripts (vowel signs, viramas, Thai tone marks):
 * part of a label, never its first character (UTS #46 refuses a label that
 * starts with one). The Latin combining accents are left out, as a few of
 * them compose with ASCII into refused characters (`=` + U+0338 is `≠`).
 */
export const IDN_MARKS =
  '\\u0483-\\u0489\\u0900-\\u0903\\u093a-\\u093c\\u093e-\\u094f\\u0951-\\u0957\\u0962\\u0963\\u0981-\\u0983\\u09bc\\u09be-\\u09c4\\u09c7\\u09c8' +
  '\\u09cb-\\u09cd\\u09d7\\u09e2\\u09e3\\u09fe\\u0a01-\\u0a03\\u0a3c\\u0a3e-\\u0a42\\u0a47\\u0a48\\u0a4b-\\u0a4d\\u0a51\\u0a70\\u0a71\\u0a75' +
  '\\u0a81-\\u0a83\\u0abc\\u0abe-\\u0ac5\\u0ac7-\\u0ac9\\u0acb-\\u0acd\\u0ae2\\u0ae3\\u0afa-\\u0aff\\u0b01-\\u0b03\\u0b3c\\u0b3e-\\u0b44\\u0b47' +
  '\\u0b48\\u0b4b-\\u0b4d\\u0b55-\\u0b57\\u0b62\\u0b63\\u0b82\\u0bbe-\\u0bc2\\u0bc6-\\u0bc8\\u0bca-\\u0bcd\\u0bd7\\u0c00-\\u0c04\\u0c3c' +
  '\\u0c3e-\\u0c44\\u0c46-\\u0c48\\u0c4a-\\u0c4d\\u0c55\\u0c56\\u0c62\\u0c63\\u0c81-\\u0c83\\u0cbc\\u0cbe-\\u0cc4\\u0cc6-\\u0cc8\\u0cca-\\u0ccd' +
  '\\u0cd5\\u0cd6\\u0ce2\\u0ce3\\u0cf3\\u0d00-\\u0d03\\u0d3b\\u0d3c\\u0d3e-\\u0d44\\u0d46-\\u0d48\\u0d4a-\\u0d4d\\u0d57\\u0d62\\u0d63\\u0d81-\\u0d83' +
  '\\u0dca\\u0dcf-\\u0dd4\\u0dd6\\u0dd8-\\u0ddf\\u0df2\\u0df3\\u0e31\\u0e34-\\u0e3a\\u0e47-\\u0e4e\\u0eb1\\u0eb4-\\u0ebc\\u0ec8-\\u0ece\\u3099\\u309a';

// A domain label's characters: ASCII letters, digits, `-` and `_` (WHATWG
// takes underscores, and intranet names use them), the IDN letters, and
// after the first character the marks.
const FIRST = `[A-Za-z0-9_\\-${IDN_LETTERS}]`;
const NEXT = `[A-Za-z0-9_\\-${IDN_LETTERS}${IDN_MARKS}]`;
const NOT_DIGIT = `[A-Za-z_\\-${IDN_LETTERS}]`;
const NOT_DIGIT_NOR_X = `[A-WYZa-wyz_\\-${IDN_LETTERS}]`;
const NOT_HEX = `[G-Zg-z_\\-${IDN_LETTERS}${IDN_MARKS}]`;

/**
 * The last label of a name: never a number. WHATWG reads a host whose last
 * label is all digits, or `0x` and hex digits, as an IPv4 address and fails
 * when the whole is not one (`a.1`, `a.0x`, `1.2.3.4.5`). So: a label that
 * starts with a non-digit; or with digits then a non-digit, where a leading
 * `0x` needs a non-hex character after it.
 */
const LAST_LABEL =
  `(?:${NOT_DIGIT}|[1-9][0-9]*${NOT_DIGIT}|0[0-9]*${NOT_DIGIT_NOR_X}|0[0-9]+[Xx]|0[Xx][0-9A-Fa-f]*${NOT_HEX})${NEXT}*`;

/** A domain name: labels joined by dots (none empty), an optional trailing dot. */
const DOMAIN = `(?:${FIRST}${NEXT}*\\.)*${LAST_LABEL}\\.?`;

const HOST = `(?:${IPV4}|\\[(?:${IPV6})\\]|${DOMAIN})`;
const PORT = '(?::(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3}|0))?';

/** Path, query and fragment: anything but controls (spaces and non-ASCII are percent-encoded by the parser). */
const REST = '(?:[/?#][^\\u0000-\\u001f\\u007f]*)?';

const HTTP_URL = `${SCHEME}${USERINFO}${HOST}${PORT}${REST}`;

/**
 * An http(s) URL as the service takes it, with the whitespace around it that
 * the service trims (`String.prototype.trim()`): the OpenAPI document applies
 * the pattern to the string as sent.
 */
export const HTTP_URL_PATTERN = new RegExp(`^${WS}${HTTP_URL}${WS}$`);

const TRIMMED_HTTP_URL = new RegExp(`^${HTTP_URL}$`);

/**
 * Whether a URL matches HTTP_URL_PATTERN, answered in linear time: the
 * pattern itself backtracks quadratically when a path full of spaces is
 * followed by something it refuses (its path and its trailing whitespace
 * can both take a space), so the service runs the same expression without
 * the padding on the trimmed string, which gives the same answer.
 */
export function matchesHttpUrlPattern(url: string): boolean {
  return TRIMMED_HTTP_URL.test(url.trim());
}

/** The user name and password part alone (between `//` and the last `@`), to name a malformed escape in messages. */
export const USERINFO_PATTERN = new RegExp(`^(?:[^\\u0000-\\u0020\\u007f%@/\\\\?#]|${PERCENT_UTF8})*$`);

/**
 * `s3://<bucket>/<key>` as a batch's itemsUrl takes it (the bucket in lower
 * case, a key of 1 to 1024 characters without controls), with the same
 * surrounding whitespace. Whose bucket and key are allowed is decided with
 * the caller's account (lib/batches/item-source.ts). The `u` flag counts a
 * key's characters as JSON Schema does (code points); the document takes the
 * source alone.
 */
export const S3_KEY_PATTERN = new RegExp(`^${WS}s3://[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]/[^\\u0000-\\u001f\\u007f]{1,1024}${WS}$`, 'u');
