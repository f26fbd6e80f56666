/**
 * What every HTML page the service serves (the API reference at /docs, the
 * template studio at /) carries: a Content-Security-Policy that lets the page
 * load and call only its own origin, and headers against sniffing, leaking
 * the URL, framing and cross-origin use. One definition, so the two pages
 * cannot drift apart.
 */

/** Headers for a page and its assets beside the policy. */
export const PAGE_SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
} as const;

/**
 * A same-origin policy: scripts, fonts, images and API calls from this origin
 * only, nothing framed or posted elsewhere. `style` is the page's style-src
 * sources; `images` its img-src sources; `extra` adds directives (a worker).
 */
export function sameOriginPolicy(options: { style: string; images?: string; extra?: string[] }): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    ...(options.extra ?? []),
    `style-src ${options.style}`,
    `img-src ${options.images ?? "'self' data:"}`,
    "font-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}
