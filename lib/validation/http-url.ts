import { urlToHttpOptions } from 'node:url';
import * as v from 'valibot';
import { upFrontRefusal } from '../net/egress-policy.js';

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
 * True when Node's HTTP client can take the URL: `http.request()` runs
 * `urlToHttpOptions`, which percent-decodes the user name and password and
 * throws `URIError` on a malformed escape (`http://user%SZ@host/`). WHATWG
 * URL parsing keeps such escapes as written, so only this catches them.
 */
function nodeCanCall(url: string): boolean {
  try {
    urlToHttpOptions(new URL(url));
    return true;
  } catch {
    return false;
  }
}

/**
 * Schema of a URL the service will fetch or call: an absolute `http:` or
 * `https:` URL (checked on what `new URL()` parses, so case and padding
 * tricks such as ` FILE:///etc/passwd` are refused). Surrounding whitespace is
 * trimmed in the output. A URL whose user name or password holds a malformed
 * percent escape is refused here, not left to throw later in the HTTP client
 * (a 500 at render time, or a queue message offered again and again).
 * `fieldLabel` names the thing in messages
 * ("Must be an absolute URL…"). For a URL the service will connect to, use
 * `publicHttpUrl`, which adds the egress policy's up-front checks.
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
    v.check(
      (url) => protocolOf(url) === undefined || nodeCanCall(url),
      'The user name or password holds a malformed percent escape (write a literal % as %25)',
    ),
  );
}

/**
 * Schema of a URL the service will connect to on the caller's behalf
 * (`page.url`, `webhook.url`, `storage.preSignedUrl`, an overlay background):
 * `httpUrl` plus the egress policy's up-front refusal of a host that is a
 * literal non-public address in any spelling (`127.0.0.1`, `2130706433`,
 * `0x7f.1`, `[::ffff:127.0.0.1]`…) or `localhost`, unless ALLOW_PRIVATE_HOSTS
 * lets it through. Host names are not resolved here: the address they lead
 * to is judged when the connection is made, where it cannot change after the
 * check.
 */
export function publicHttpUrl(fieldLabel = 'URL') {
  return v.pipe(
    httpUrl(fieldLabel),
    v.check(
      (url) => upFrontRefusal(url) === undefined,
      (issue) => `Must point to a public address: ${upFrontRefusal(String(issue.input)) ?? 'the host is not allowed'}`,
    ),
  );
}
