import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { NavigationError, RenderError } from '../../../lib/errors.js';
import { toNavigationError } from '../../../lib/render/navigation-error.js';

describe('toNavigationError', () => {
  it('names the network error and says what it means, on the page source field', () => {
    // Act
    const error = toNavigationError(new Error('net::ERR_CONNECTION_REFUSED at http://127.0.0.1:9/'), { field: 'page.url', timeoutMs: 1000 });

    // Assess
    assert.ok(error instanceof NavigationError);
    assert.deepEqual(error.fields, { 'page.url': 'net::ERR_CONNECTION_REFUSED (the server refused the connection)' });
    assert.equal(error.statusCode, 400);
  });

  it('reports a navigation timeout in seconds', () => {
    // Prepare
    const timeout = Object.assign(new Error('Navigation timeout of 20000 ms exceeded'), { name: 'TimeoutError' });

    // Act
    const error = toNavigationError(timeout, { field: 'page.html', timeoutMs: 20_000 });

    // Assess
    assert.ok(error instanceof NavigationError);
    assert.match((error as NavigationError).fields['page.html'] ?? '', /within 20 s/);
  });

  it('blames the browser, not the caller, for anything else', () => {
    // Act
    const error = toNavigationError(new Error('Protocol error: Target closed'), { field: 'page.url', timeoutMs: 1000 });

    // Assess
    assert.ok(error instanceof RenderError);
    assert.equal(error.statusCode, 500);
    assert.equal(error.expose, false);
  });
});
