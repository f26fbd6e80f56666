import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { NavigationError } from '../../../lib/errors.js';
import type { Renderer } from '../../../lib/render/index.js';
import { MAX_NAVIGATIONS_AWAY } from '../../../lib/render/page/navigation-guard.js';
import { warmRenderer } from '../../helpers/local-egress.js';
import { html, startTestServer, type TestServer } from '../../helpers/test-server.js';
import { b64, pdfText, renderImage } from './render-fixtures.js';

type Route = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * A privacy-leak catalogue's auto-click page: once loaded, a script clicks
 * every link with a `ping` attribute and every `formaction` button, and again
 * every 50 ms. Each click is a navigation of the page away from itself.
 */
const autoClick = (site: string) => `<p>auto-click page</p>
<a ping="${site}/ping" href="${site}/away?link=1">ping link</a>
<a ping="${site}/ping" href="${site}/away?link=2">second ping link</a>
<form action="${site}/away"><button formaction="${site}/away?form=1">form action</button></form>
<script>
  function clickAll() {
    document.querySelectorAll('a[ping]').forEach((a) => a.click());
    document.querySelectorAll('button[formaction]').forEach((b) => b.click());
  }
  window.addEventListener('load', () => { clickAll(); setInterval(clickAll, 50); });
</script>`;

/** A page that sends itself on at once, `hops` times, then shows where it arrived. */
const clientRedirect = (hop: number, hops: number) =>
  hop < hops ? `<p>hop ${hop}</p><script>location.replace('/hop?n=${hop + 1}')</script>` : `<p>arrived after ${hops} hops</p>`;

describe('renderer › a page that navigates itself away', () => {
  let renderer: Renderer;
  let site: TestServer;
  const routes: Record<string, Route> = {};

  before(async () => {
    site = await startTestServer(routes);
    Object.assign(routes, {
      '/auto-click': html(autoClick(site.url)),
      // Where the clicks lead: a page that navigates on by itself.
      '/away': html(`<p>navigated away</p><script>location.href = '/away?again=' + Date.now()</script>`),
      '/ping': (_req, res) => {
        res.writeHead(204);
        res.end();
      },
      '/hop': (req, res) => html(clientRedirect(Number(new URL(req.url ?? '', site.url).searchParams.get('n')), 3))(req, res),
    } satisfies Record<string, Route>);
    renderer = await warmRenderer();
  });
  after(async () => {
    await renderer?.close();
    await site?.close();
  });

  it('renders the page.html given when its script clicks ping links and formaction buttons after the load', async () => {
    // Act
    const text = await pdfText(renderer, { html: b64(autoClick(site.url)) });

    // Assess
    assert.match(text, /auto-click page/);
    assert.doesNotMatch(text, /navigated away/);
  });

  it('shoots the page.html given as a screenshot too', async () => {
    // Act
    const image = await renderImage(renderer, { html: b64(autoClick(site.url)) });

    // Assess
    assert.equal(image.contentType, 'image/png');
  });

  it('throws a NavigationError naming the loop, not a timeout, when a page.url keeps navigating away', async () => {
    // Act / Assess
    await assert.rejects(
      pdfText(renderer, { url: `${site.url}/auto-click` }),
      (error: unknown) =>
        error instanceof NavigationError &&
        new RegExp(`kept navigating away: more than ${MAX_NAVIGATIONS_AWAY} navigations`).test(error.fields['page.url'] ?? ''),
    );
  });

  it('still follows a page.url that redirects itself on a few times by script', async () => {
    // Act
    const text = await pdfText(renderer, { url: `${site.url}/hop?n=0` });

    // Assess
    assert.match(text, /arrived after 3 hops/);
  });
});
