/**
 * The characters JavaScript's `\s` and `String.prototype.trim()` take for
 * whitespace, as the body of a regular expression class written with
 * escapes. The OpenAPI document's patterns spell them out rather than write
 * `\s`, which other regex engines read differently (Python's `\s`, which
 * generators such as Schemathesis use, also takes U+001C–U+001F and not U+FEFF).
 */
export const JS_WHITESPACE = '\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff';
