import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RenderError } from '../../../lib/errors.js';
import { PageLoadError } from '../../../lib/render/errors.js';
import type { HTTPResponse } from 'puppeteer-core';
import type { EgressEvent, EgressProxy } from '../../../lib/net/index.js';
import { refusedByEgress, toPageLoadError } from '../../../lib/render/page/navigation-error.js';

/** An egress proxy that remembers one failure, for one host. */
function proxyRemembering(host: string, event: Omit<EgressEvent, 'at' | 'host'>): EgressProxy {
  const remembered: EgressEvent = { ...event, host, at: Date.now() };
  return {
    url: 'http://127.0.0.1:1',
    port: 1,
    chromiumArgs: [],
    stats: () => ({ forwarded: 0, tunnelled: 0, refused: 1, unreachable: 0, active: 0 }),
    failureFor: (url) => (new URL(url).hostname === host ? remembered : undefined),
    recentEvents: () => [remembered],
    close: async () => undefined,
  };
}

const refusal = { outcome: 'refused', kind: 'connect', port: 443, reason: '10.0.0.5 is a private address', netError: 'ERR_ACCESS_DENIED' } as const;

/** The part of a puppeteer response `refusedByEgress` reads. */
const responseOf = (url: string, headers: Record<string, string>) => ({ url: () => url, headers: () => headers }) as unknown as HTTPResponse;

describe('toPageLoadError', () => {
  it('names the network error and says what it means', () => {
    // Act
    const error = toPageLoadError(new Error('net::ERR_CONNECTION_REFUSED at http://127.0.0.1:9/'), { timeoutMs: 1000 });

    // Assess
    assert.ok(error instanceof PageLoadError);
    assert.equal((error as PageLoadError).reason, 'net::ERR_CONNECTION_REFUSED (the server refused the connection)');
    assert.equal(error.statusCode, 400);
  });

  it('reports a navigation timeout in seconds', () => {
    // Prepare
    const timeout = Object.assign(new Error('Navigation timeout of 20000 ms exceeded'), { name: 'TimeoutError' });

    // Act
    const error = toPageLoadError(timeout, { timeoutMs: 20_000 });

    // Assess
    assert.ok(error instanceof PageLoadError);
    assert.match((error as PageLoadError).reason, /within 20 s/);
  });

  it('blames the URL when Chromium refuses to navigate to it (found by fuzzing: `https://١.com/`)', () => {
    // Act
    const error = toPageLoadError(new Error('Protocol error (Page.navigate): Cannot navigate to invalid URL'), { timeoutMs: 1000 });

    // Assess
    assert.ok(error instanceof PageLoadError);
    assert.match(error.reason, /ERR_INVALID_URL \(the URL is not valid\)/);
  });

  it('blames the browser, not the caller, for anything else', () => {
    // Act
    const error = toPageLoadError(new Error('Protocol error: Target closed'), { timeoutMs: 1000 });

    // Assess
    assert.ok(error instanceof RenderError);
    assert.equal(error.statusCode, 500);
    assert.equal(error.expose, false);
  });

  it('explains a tunnel the egress proxy refused with its reason, naming the last hop', () => {
    // Prepare
    const egress = proxyRemembering('10.0.0.5', refusal);

    // Act
    const error = toPageLoadError(new Error('net::ERR_TUNNEL_CONNECTION_FAILED at https://public.example/'), {
      timeoutMs: 1000,
      egress,
      lastUrl: 'https://10.0.0.5/after-redirect',
    });

    // Assess
    assert.ok(error instanceof PageLoadError);
    assert.match(error.reason, /^net::ERR_ACCESS_DENIED \(refused by the egress policy: 10\.0\.0\.5 is a private address/);
  });

  it('falls back to a plain explanation of a failed tunnel the proxy does not remember', () => {
    // Act
    const error = toPageLoadError(new Error('net::ERR_TUNNEL_CONNECTION_FAILED at https://x.example/'), { timeoutMs: 1000 });

    // Assess
    assert.ok(error instanceof PageLoadError);
    assert.match(error.reason, /^net::ERR_TUNNEL_CONNECTION_FAILED \(/);
  });
});

describe('refusedByEgress', () => {
  const egress = proxyRemembering('10.0.0.5', { ...refusal, kind: 'http', port: 80 });

  it('turns a plain-http answer marked by the proxy into a navigation error with the reason', () => {
    // Act
    const error = refusedByEgress(responseOf('http://10.0.0.5/x', { 'x-docrender-egress': 'refused' }), egress);

    // Assess
    assert.ok(error instanceof PageLoadError);
    assert.match(error.reason, /private address/);
  });

  it('lets through an answer without the marker, and an https answer that carries it (only the site could have written it)', () => {
    // Act
    const plain = refusedByEgress(responseOf('http://10.0.0.5/x', {}), egress);
    const tunnelled = refusedByEgress(responseOf('https://10.0.0.5/x', { 'x-docrender-egress': 'refused' }), egress);

    // Assess
    assert.equal(plain, undefined);
    assert.equal(tunnelled, undefined);
  });
});
