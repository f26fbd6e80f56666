/**
 * The one base64 decoder for user-supplied HTML (`page.html`,
 * `page.htmlTemplate`, `pdf.headerHtml`, `pdf.footerHtml`), shared by the
 * validation schemas and the renderer so both agree on what is valid.
 *
 * Accepted: the standard alphabet (`A–Z a–z 0–9 + /`), ASCII whitespace
 * anywhere (ignored, so line-wrapped output of `base64` works), padding
 * optional but correct when present. Refused: the URL-safe alphabet
 * (`-`, `_`), misplaced `=`, a length that cannot be base64, and bytes that
 * are not valid UTF-8. A leading byte order mark is dropped.
 */

/** Why a string is not base64 text, in words a caller can act on. */
export type Base64TextProblem = 'Must be valid base64' | 'Must be base64-encoded UTF-8 text';

export type Base64TextResult = { ok: true; text: string } | { ok: false; problem: Base64TextProblem };

// RFC 4648 §4 alphabet with at most two trailing pad characters.
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
// HTML's "ASCII whitespace": what `base64` line wrapping and editors insert.
const ASCII_WHITESPACE = /[\t\n\f\r ]+/g;

// Created once: a fatal decoder throws on invalid UTF-8 instead of
// silently inserting U+FFFD, which would change the user's document.
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Decodes base64 to UTF-8 text, reporting why it cannot instead of throwing. */
export function tryDecodeBase64Text(encoded: string): Base64TextResult {
  const compact = encoded.replace(ASCII_WHITESPACE, '');
  if (!BASE64.test(compact)) return { ok: false, problem: 'Must be valid base64' };
  const padded = compact.endsWith('=');
  // With padding the length is a multiple of 4; without, a remainder of 1
  // cannot occur (one base64 character carries only 6 bits).
  if (padded ? compact.length % 4 !== 0 : compact.length % 4 === 1) {
    return { ok: false, problem: 'Must be valid base64' };
  }
  try {
    return { ok: true, text: utf8.decode(Buffer.from(compact, 'base64')) };
  } catch {
    return { ok: false, problem: 'Must be base64-encoded UTF-8 text' };
  }
}

/** Decodes base64 to UTF-8 text; throws a TypeError naming the problem when it is not. */
export function decodeBase64Text(encoded: string): string {
  const result = tryDecodeBase64Text(encoded);
  if (!result.ok) throw new TypeError(result.problem);
  return result.text;
}

// The same grammar as a regular expression, for the OpenAPI document: ASCII
// whitespace after any character, groups of four, and a last group of two or
// three characters, padded to four with `=` or not.
const W = '[\\t\\n\\f\\r ]*';
const C = `[A-Za-z0-9+/]${W}`;
const LAST_GROUP = `(?:${C}){2}(?:=${W}=${W})?|(?:${C}){3}(?:=${W})?`;

/**
 * What `tryDecodeBase64Text` reads as base64, as a JSON Schema `pattern`
 * (ECMA-262): `nonEmpty` also asks for at least one decoded byte. Whether
 * the bytes are UTF-8 has no such form; the service answers that with 400.
 */
export function base64TextPattern(nonEmpty: boolean): string {
  return nonEmpty
    ? `^${W}(?:(?:${C}){4})*(?:(?:${C}){4}|${LAST_GROUP})$`
    : `^${W}(?:(?:${C}){4})*(?:${LAST_GROUP})?$`;
}

// Base64 as a size check reads it: the alphabet, whitespace anywhere, at most two `=` at the end.
const LOOSE_BASE64 = /^[A-Za-z0-9+/\s]*={0,2}\s*$/;

/** Decoded size of valid base64 (whitespace ignored), without decoding it; undefined when it is not base64. */
export function base64Bytes(encoded: string): number | undefined {
  if (!LOOSE_BASE64.test(encoded)) return undefined;
  const compact = encoded.replace(/\s+/g, '');
  if (compact.length % 4 === 1) return undefined;
  const padding = compact.endsWith('==') ? 2 : compact.endsWith('=') ? 1 : 0;
  return Math.floor((compact.length * 3) / 4) - padding;
}
