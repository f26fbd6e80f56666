/**
 * The one way the service calls a URL on a caller's behalf: webhook
 * deliveries and uploads to a caller's pre-signed URL both go through
 * `sendOutbound`, so the rules for such calls live in one place (the network
 * rules for caller-supplied addresses are added here too).
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import { urlToHttpOptions } from 'node:url';
import { within } from '../deadline.js';
import { EgressRefusedError } from '../net/errors.js';
import { FRAMING_HEADERS } from '../net/hop-by-hop-headers.js';
import { egressLookup } from '../net/resolve-egress.js';

/** No answer within this time is a failure (decisions.md: 10 s for webhooks; uploads get the same). */
export const OUTBOUND_TIMEOUT_MS = 10_000;
/** How much of a response body is read before the connection is dropped: only the status matters. */
export const MAX_RESPONSE_BYTES = 64 * 1024;

export type OutboundRequest = {
  url: string;
  method: 'POST' | 'PUT';
  headers: Record<string, string>;
  /** The body, or a stream of exactly `length` bytes (a large file sent as it is read). */
  body: Buffer | string | StreamedBody;
  /** Overall limit for connect, send and answer; at most OUTBOUND_TIMEOUT_MS unless `maxTimeoutMs` allows more. */
  timeoutMs?: number;
  /** Raises the cap on `timeoutMs` for a large upload (a batch's archive); webhooks keep OUTBOUND_TIMEOUT_MS. */
  maxTimeoutMs?: number;
};

export type StreamedBody = { stream: AsyncIterable<Uint8Array>; length: number };

/**
 * What came of a call. `ok` only for a 2xx answer; a redirect is not
 * followed and counts as a failure. `error` is a short reason fit for a job
 * record; it never contains the URL (pre-signed URLs carry credentials).
 */
export type OutboundResult = {
  ok: boolean;
  statusCode?: number;
  error?: string;
  /** The URL itself cannot be called (not a URL, wrong scheme, refused by Node's HTTP client): another attempt would fail the same way. */
  permanent?: true;
  durationMs: number;
};


/**
 * Sends one request and reports how it went; never throws for a network or
 * HTTP failure. The whole exchange is bounded by the timeout, redirects are
 * not followed, and at most MAX_RESPONSE_BYTES of the answer are read.
 */
export async function sendOutbound(request: OutboundRequest): Promise<OutboundResult> {
  const started = Date.now();
  const cap = Math.max(OUTBOUND_TIMEOUT_MS, request.maxTimeoutMs ?? OUTBOUND_TIMEOUT_MS);
  const timeoutMs = Math.max(0, Math.min(request.timeoutMs ?? OUTBOUND_TIMEOUT_MS, cap));
  const done = (result: Omit<OutboundResult, 'durationMs'>): OutboundResult => ({ ...result, durationMs: Date.now() - started });

  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return done({ ok: false, error: 'not a valid URL', permanent: true });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return done({ ok: false, error: 'only http and https URLs are called', permanent: true });
  // What `http.request()` would throw on (URIError for a malformed escape in the user-info), found before any lookup.
  try {
    urlToHttpOptions(url);
  } catch {
    return done({ ok: false, error: 'the URL cannot be called (malformed percent escape in the user name or password)', permanent: true });
  }
  if (timeoutMs === 0) return done({ ok: false, error: 'no time left to make the call' });

  const body = typeof request.body === 'string' ? Buffer.from(request.body, 'utf8') : request.body;
  const headers: Record<string, string> = { 'user-agent': 'DocRender', accept: '*/*' };
  for (const [name, value] of Object.entries(request.headers)) {
    // Connection-level headers are ours to set; a caller's value would corrupt the request.
    if (!FRAMING_HEADERS.has(name.toLowerCase())) headers[name.toLowerCase()] = value;
  }
  headers['content-length'] = String(body.length);

  // The one clock for the whole exchange starts before the lookup: a resolver that never answers is bounded too.
  const deadline = started + timeoutMs;
  const noAnswer = `no answer within ${Math.round(timeoutMs / 100) / 10} s`;

  // Resolved and checked once; the connection goes to a checked address (no second lookup to rebind).
  let lookup: LookupFunction;
  try {
    const resolved = await within(egressLookup(url.hostname), deadline - Date.now(), undefined);
    if (!resolved) return done({ ok: false, error: noAnswer });
    lookup = resolved;
  } catch (error) {
    if (error instanceof EgressRefusedError) return done({ ok: false, error: `refused by the network rules: ${error.message}` });
    return done({ ok: false, error: networkReason(error as NodeJS.ErrnoException) });
  }

  // Opened only now that the call will be made: an early refusal leaves a streamed file unread and unopened.
  const streamed = Buffer.isBuffer(body) ? undefined : Readable.from(body.stream);
  const dropStream = () => streamed?.destroy();
  return new Promise<OutboundResult>((resolve) => {
    let settled = false;
    const settle = (result: Omit<OutboundResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      dropStream();
      resolve(done(result));
    };
    const client = url.protocol === 'https:' ? https : http;
    let req: http.ClientRequest;
    try {
      // A fresh connection per call (agent: false): nothing is pooled towards caller hosts.
      req = client.request(url, { method: request.method, headers, agent: false, lookup }, (res) => {
        const statusCode = res.statusCode ?? 0;
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_RESPONSE_BYTES) res.destroy();
        });
        res.on('error', () => undefined);
        // The status decides; the body is only drained (up to the limit) so the connection closes cleanly.
        res.on('close', () => settle(statusOutcome(statusCode)));
        res.on('end', () => settle(statusOutcome(statusCode)));
      });
    } catch (error) {
      // Node's client throws synchronously on what it cannot send (a malformed escape in the user-info
      // throws URIError, a header value outside Latin-1 ERR_INVALID_CHAR); the schemas refuse those up
      // front, and a record stored before they did must still end as a failed call, not as a throw that
      // fails the whole job again and again.
      const { code, name } = error as NodeJS.ErrnoException;
      dropStream();
      resolve(done({ ok: false, error: `the request cannot be sent (${code ?? name})`, permanent: true }));
      return;
    }
    const timer = setTimeout(() => {
      settle({ ok: false, error: noAnswer });
      req.destroy();
    }, Math.max(0, deadline - Date.now()));
    req.on('error', (error: NodeJS.ErrnoException) => settle({ ok: false, error: networkReason(error) }));
    if (!streamed) {
      req.end(body as Buffer);
      return;
    }
    // A file that cannot be read ends the call as a failure; one shorter or longer than announced is cut off by the client.
    streamed.on('error', () => {
      settle({ ok: false, error: 'the file could not be read' });
      req.destroy();
    });
    streamed.pipe(req);
  });
}


function statusOutcome(statusCode: number): Omit<OutboundResult, 'durationMs'> {
  if (statusCode >= 200 && statusCode < 300) return { ok: true, statusCode };
  if (statusCode >= 300 && statusCode < 400) return { ok: false, statusCode, error: `answered ${statusCode} (redirects are not followed)` };
  return { ok: false, statusCode, error: `answered ${statusCode}` };
}

/** A reason without the URL: the error code and Node's message minus any address details. */
export function networkReason(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host name could not be resolved';
    case 'ECONNRESET':
      return 'connection reset';
    case 'ETIMEDOUT':
      return 'connection timed out';
    case 'CERT_HAS_EXPIRED':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `TLS certificate not accepted (${error.code})`;
    default:
      return error.code ? `request failed (${error.code})` : 'request failed';
  }
}
