import type { HTTPResponse } from 'puppeteer-core';
import { RenderError, type ServiceError } from '../../errors.js';
import { EGRESS_HEADER, type EgressEvent, type EgressProxy } from '../../net/index.js';
import { PageLoadError } from '../errors.js';

/** Chromium's network error names, with what they mean to someone who is not a Chromium developer. */
const EXPLANATIONS: Record<string, string> = {
  ERR_NAME_NOT_RESOLVED: 'the host name could not be resolved',
  ERR_NAME_RESOLUTION_FAILED: 'the host name could not be resolved',
  ERR_CONNECTION_REFUSED: 'the server refused the connection',
  ERR_CONNECTION_RESET: 'the connection was reset',
  ERR_CONNECTION_CLOSED: 'the server closed the connection without answering',
  ERR_CONNECTION_TIMED_OUT: 'the connection timed out',
  ERR_CONNECTION_FAILED: 'the connection failed',
  ERR_TIMED_OUT: 'the request timed out',
  ERR_ADDRESS_UNREACHABLE: 'the address is unreachable',
  ERR_EMPTY_RESPONSE: 'the server sent an empty response',
  ERR_ABORTED: 'the load was aborted, for example because the URL is a file download',
  ERR_BLOCKED_BY_CLIENT: 'the address is blocked',
  ERR_ACCESS_DENIED: 'the address may not be loaded',
  ERR_INVALID_URL: 'the URL is not valid',
  ERR_UNSAFE_PORT: 'the port is not allowed',
  ERR_TOO_MANY_REDIRECTS: 'the page redirects too many times',
  ERR_INVALID_RESPONSE: 'the server sent an invalid response',
  ERR_CERT_AUTHORITY_INVALID: 'the TLS certificate is not trusted',
  ERR_CERT_COMMON_NAME_INVALID: 'the TLS certificate does not match the host name',
  ERR_CERT_DATE_INVALID: 'the TLS certificate has expired or is not yet valid',
  ERR_SSL_PROTOCOL_ERROR: 'the TLS handshake failed',
  ERR_HTTP2_PROTOCOL_ERROR: 'the server broke the HTTP/2 protocol',
  ERR_TUNNEL_CONNECTION_FAILED: 'the address could not be reached, or may not be loaded',
};

/** Chromium's words for what the egress proxy refused or could not reach, with the proxy's reason. */
function egressReason(event: EgressEvent): string {
  if (event.outcome === 'refused') {
    return `net::${event.netError} (refused by the egress policy: ${event.reason}; only public addresses may be loaded)`;
  }
  return `net::${event.netError} (${event.reason})`;
}

/**
 * The navigation's answer came from the egress proxy, not from the site: the
 * address was refused or could not be reached. Only a plain-http answer can
 * be the proxy's (https goes through a tunnel the proxy cannot write into),
 * and the proxy strips the header from what sites send, so a site cannot fake it.
 */
export function refusedByEgress(response: HTTPResponse, egress: EgressProxy): PageLoadError | undefined {
  const url = response.url();
  if (!url.startsWith('http:') || response.headers()[EGRESS_HEADER] === undefined) return undefined;
  const event = egress.failureFor(url);
  return new PageLoadError(event ? egressReason(event) : 'net::ERR_ACCESS_DENIED (the address may not be loaded)');
}

/**
 * Turns what puppeteer throws while loading the page into the error the
 * caller sees: a `PageLoadError` with a readable reason when the page could
 * not be loaded (the edge names the source field), a `RenderError` (500)
 * when the browser itself failed.
 */
export function toPageLoadError(
  error: unknown,
  options: { timeoutMs: number; egress?: EgressProxy; lastUrl?: string },
): ServiceError {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof Error && error.name === 'TimeoutError') {
    const seconds = Math.round(options.timeoutMs / 100) / 10;
    return new PageLoadError(`Navigation timeout: the page did not finish loading within ${seconds} s`, { cause: error });
  }
  const code = /net::(ERR_[A-Z0-9_]+)/.exec(message)?.[1];
  // An https address (or a redirect to one) the proxy refused or could not connect to: say which and why.
  const event = code === 'ERR_TUNNEL_CONNECTION_FAILED' && options.lastUrl ? options.egress?.failureFor(options.lastUrl) : undefined;
  if (event) return new PageLoadError(egressReason(event), { cause: error });
  if (code) {
    const explanation = EXPLANATIONS[code];
    return new PageLoadError(explanation ? `net::${code} (${explanation})` : `net::${code}`, { cause: error });
  }
  // Chromium's URL parser is stricter than WHATWG's in places (IDNA bidi rules: `https://١.com/` parses in
  // Node, not in Chromium). The caller's URL, not the browser, is at fault: a 400 on the field, not a 500.
  if (/Cannot navigate to invalid URL/i.test(message)) {
    return new PageLoadError(`net::ERR_INVALID_URL (${EXPLANATIONS.ERR_INVALID_URL})`, { cause: error });
  }
  if (/frame was detached/i.test(message)) {
    return new PageLoadError('The page replaced itself while loading', { cause: error });
  }
  return new RenderError('The browser failed while loading the page', { cause: error });
}
