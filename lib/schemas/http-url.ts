import * as v from 'valibot';

/** Longest URL accepted; pre-signed URLs run to a few kB, real pages far less. */
export const MAX_URL_LENGTH = 8192;

const ALLOWED_PROTOCOLS = new Set(['http:', 'https:']);
// C0 controls and DEL: URL parsers silently drop some of them (tab, newline),
// which would let `java\nscript:` style spellings slip past a plain text check.
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

function protocolOf(url: string): string | undefined {
  try {
    return new URL(url).protocol;
  } catch {
    return undefined;
  }
}

/**
 * Schema of a URL the service will fetch or call: an absolute `http:` or
 * `https:` URL (checked on what `new URL()` parses, so case and padding
 * tricks such as ` FILE:///etc/passwd` are refused). Surrounding whitespace is
 * trimmed in the output. `fieldLabel` names the thing in messages
 * ("Must be an absolute URL…"). Address checks (private hosts) are added on
 * top of this by the network rules.
 */
export function httpUrl(fieldLabel = 'URL') {
  return v.pipe(
    v.string('Must be a string'),
    v.trim(),
    v.nonEmpty('Must not be empty'),
    v.maxLength(MAX_URL_LENGTH, `Must be at most ${MAX_URL_LENGTH} characters`),
    v.check(
      (url) => protocolOf(url) !== undefined,
      `Must be an absolute ${fieldLabel} including the scheme, e.g. https://example.com`,
    ),
    v.check((url) => ALLOWED_PROTOCOLS.has(protocolOf(url) ?? 'http:'), 'Only http and https URLs are allowed'),
    v.check((url) => !CONTROL_CHARACTERS.test(url), 'Must not contain control characters'),
  );
}
