import { urlToHttpOptions } from 'node:url';
import * as v from 'valibot';
import { upFrontRefusal } from '../net/egress-policy.js';
import { HTTP_URL_PATTERN, matchesHttpUrlPattern, USERINFO_PATTERN } from './http-url-pattern.js';

/** Longest URL accepted; pre-signed URLs run to a few kB, real pages far less. */
export const MAX_URL_LENGTH = 8192;

// C0 controls and DEL: URL parsers silently drop some of them (tab, newline),
// which would let `java\nscript:` style spellings slip past a plain text check.
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/** The scheme as a browser reads it (`java\tscript:` is `javascript:`), lower case; undefined when there is none. */
function schemeOf(url: string): string | undefined {
  try {
    return new URL(url).protocol;
  } catch {
    return SCHEME.exec(url.replace(/[\t\n\r]/g, ''))?.[0].toLowerCase();
  }
}

/**
 * Why a trimmed URL does not match HTTP_URL_PATTERN, in the caller's terms:
 * the first thing that is wrong, the most common mistakes first.
 */
function httpUrlProblem(url: string, fieldLabel: string): string {
  const scheme = schemeOf(url);
  if (scheme === undefined) return `Must be an absolute ${fieldLabel} including the scheme, e.g. https://example.com`;
  if (scheme !== 'http:' && scheme !== 'https:') return 'Only http and https URLs are allowed';
  if (CONTROL_CHARACTERS.test(url)) return 'Must not contain control characters';
  if (!url.slice(scheme.length).startsWith('//')) return `Must start with ${scheme}// and a host`;
  const authority = url.slice(scheme.length + 2).split(/[/\\?#]/, 1)[0]!;
  const at = authority.lastIndexOf('@');
  if (at !== -1 && /%/.test(authority.slice(0, at)) && !USERINFO_PATTERN.test(authority.slice(0, at))) {
    return 'The user name or password holds a malformed percent escape (write a literal % as %25)';
  }
  const address = addressSpelledOtherwise(url);
  if (address) return `Write the IPv4 address as four numbers 0-255 (this host reads as ${address})`;
  return (
    'Must be http(s)://host[:port][/path]: the host a domain name (its last label not a number), an IPv4 address ' +
    '(four numbers 0-255) or an IPv6 address in brackets, the port at most 65535'
  );
}

/**
 * The dotted address WHATWG reads a host as when the caller spelled it
 * otherwise (`2130706433`, `0x7f.1`, `0177.0.0.1`): such spellings are refused
 * (they hide where a request goes), and the message says what they mean.
 */
function addressSpelledOtherwise(url: string): string | undefined {
  try {
    const { hostname } = new URL(url);
    return /^[0-9.]+$/.test(hostname) && !url.includes(`//${hostname}`) && !url.includes(`@${hostname}`) ? hostname : undefined;
  } catch {
    return undefined;
  }
}

/** True when Node's URL parser and HTTP client take the URL (what the pattern cannot check: punycode). */
function nodeCanCall(url: string): boolean {
  try {
    // http.request() runs urlToHttpOptions, which percent-decodes the user name and password.
    urlToHttpOptions(new URL(url));
    return true;
  } catch {
    return false;
  }
}

/**
 * The pattern as a `v.regex`, which the OpenAPI conversion writes out as the
 * field's `pattern`, run as `matchesHttpUrlPattern` (the same answer without
 * the pattern's quadratic worst case: a batch may carry thousands of URLs).
 */
function httpUrlSyntax(fieldLabel: string): v.RegexAction<string, (issue: v.RegexIssue<string>) => string> {
  return {
    ...v.regex(HTTP_URL_PATTERN, (issue: v.RegexIssue<string>) => httpUrlProblem(String(issue.input), fieldLabel)),
    '~run'(dataset, config) {
      if (dataset.typed && !matchesHttpUrlPattern(dataset.value)) v._addIssue(this, 'format', dataset, config);
      return dataset;
    },
  };
}

/**
 * Schema of a URL the service will fetch or call: an absolute `http:` or
 * `https:` URL as HTTP_URL_PATTERN writes it (http-url-pattern.ts), which
 * the OpenAPI document states as the field's `pattern`. Surrounding
 * whitespace is trimmed in the output. A URL matching the pattern parses with
 * `new URL()` and Node's HTTP client takes it (no malformed percent escape in
 * the user name or password, which would throw at render time, or offer a
 * queue message again and again), except a host label `xn--…` that is not
 * punycode: the parser judges that. `fieldLabel` names the thing in messages
 * ("Must be an absolute URL…"). For a URL the service will connect to, use
 * `publicHttpUrl`, which adds the egress policy's up-front checks.
 */
export function httpUrl(fieldLabel = 'URL') {
  return v.pipe(
    v.string('Must be a string'),
    v.trim(),
    v.nonEmpty('Must not be empty'),
    v.maxLength(MAX_URL_LENGTH, `Must be at most ${MAX_URL_LENGTH} characters`),
    httpUrlSyntax(fieldLabel),
    v.check(
      (url) => !matchesHttpUrlPattern(url) || nodeCanCall(url),
      'The host is not a valid domain name (a label starting xn-- must be valid punycode)',
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
