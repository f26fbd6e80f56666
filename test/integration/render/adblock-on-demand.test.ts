import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loadedAdblockEngine } from '../../../lib/render/page/adblock.js';
import type { Renderer } from '../../../lib/render/index.js';
import { warmRenderer } from '../../helpers/local-egress.js';
import { html, startTestServer, type TestServer } from '../../helpers/test-server.js';
import { AD_SCRIPT_ROUTE, b64, pdfText } from './render-fixtures.js';

// The filter lists cost ~0.2 s of CPU to load: a cold start, and renders of HTML that makes no
// request, must not pay for them; the first page that makes a request does.
describe('the ad blocker loads on demand', () => {
  let renderer: Renderer;
  let site: TestServer;

  before(async () => {
    site = await startTestServer({
      '/prebid.js': AD_SCRIPT_ROUTE,
    });
    renderer = await warmRenderer();
  });
  after(async () => {
    await renderer?.close();
    await site?.close();
  });

  it('is not loaded by the warm-up nor by HTML without requests', async () => {
    // Act
    const text = await pdfText(renderer, { html: b64('<p>no requests here</p>') });

    // Assess
    assert.match(text, /no requests here/);
    assert.equal(loadedAdblockEngine(), undefined);
  });

  it('is loaded by the first page that makes a request, and blocks the ad', async () => {
    // Act
    const text = await pdfText(renderer, { html: b64(`<p>with an ad</p><script src="${site.url}/prebid.js"></script>`) });

    // Assess
    assert.match(text, /with an ad/);
    assert.notEqual(loadedAdblockEngine(), undefined);
    assert.doesNotMatch(text, /ad script ran/);
    assert.ok(!site.requests.some((r) => r.url === '/prebid.js'), 'the ad script was fetched');
  });
});
