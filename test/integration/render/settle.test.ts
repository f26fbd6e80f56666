import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Renderer } from '../../../lib/render/index.js';
import { pngPixel, readPdf } from '../../helpers/documents.js';
import { warmRenderer } from '../../helpers/local-egress.js';
import { html, startTestServer, type TestServer } from '../../helpers/test-server.js';
import { PNG } from 'pngjs';
import { pdfImages } from '../../e2e/documents/document-fixtures.js';
import { b64, oneX, pdfText, renderImage, renderPdf, renderRequest } from './render-fixtures.js';

/** A 20×10 red PNG. */
const RED_PNG = (() => {
  const png = new PNG({ width: 20, height: 10 });
  for (let i = 0; i < png.data.length; i += 4) png.data.set([255, 0, 0, 255], i);
  return PNG.sync.write(png);
})();

/** A bar that grows to 300 px over 800 ms in requestAnimationFrame steps, as chart libraries draw. */
const RAF_BAR = `<style>body{margin:0} #bar{position:absolute;left:0;bottom:0;width:100px;height:0;background:rgb(255,0,0)}</style>
<div id="bar"></div><script>
  const start = performance.now();
  function step(now) {
    const t = Math.min(1, (now - start) / 800);
    document.getElementById('bar').style.height = (300 * t) + 'px';
    if (t < 1) requestAnimationFrame(step);
  }
  requestAnimationFrame(step);
</script>`;

/** A box that slides 500 px right over 4 s with a CSS animation and stays there (fill forwards). */
const CSS_SLIDE = `<style>body{margin:0} @keyframes slide{from{left:0}to{left:500px}}
#box{position:absolute;top:0;left:0;width:100px;height:100px;background:rgb(0,0,255);animation:slide 4s linear forwards}</style><div id="box"></div>`;

/** Same with the Web Animations API. */
const WAAPI_SLIDE = `<style>body{margin:0} #box{position:absolute;top:0;left:0;width:100px;height:100px;background:rgb(0,128,0)}</style>
<div id="box"></div><script>document.getElementById('box').animate([{ left: '0px' }, { left: '500px' }], { duration: 4000, fill: 'forwards' })</script>`;

/** Never settles: an endless spinner, a rAF loop that never stops and a poll every 100 ms. */
const NEVER_SETTLES = `<style>@keyframes spin{to{transform:rotate(360deg)}} #s{width:20px;height:20px;background:#000;animation:spin 1s linear infinite}</style>
<p>never settles</p><div id="s"></div><script>
  (function loop() { requestAnimationFrame(loop) })();
  (function poll() { fetch('data:text/plain,x').then(() => { document.title = String(Date.now()); setTimeout(poll, 100) }) })();
</script>`;

/** Only an endless CSS spinner: nothing to wait for. */
const ENDLESS_SPINNER = `<style>@keyframes spin{to{transform:rotate(360deg)}} #s{width:20px;height:20px;background:#000;animation:spin 1s linear infinite}</style>
<p>spinner page</p><div id="s"></div>`;

/** Lazy images far below the fold, which a PDF shows only if they were loaded. */
const lazyImages = (src: string) => `<div style="height:3000px">top</div><img loading="lazy" src="${src}" width="200" height="100"><p>bottom</p>`;

/** Lines the renderer logs while `work` runs (JSON lines: INFO on stdout, WARN and ERROR on stderr). */
async function logged<T>(work: () => Promise<T>): Promise<{ result: T; lines: Array<Record<string, unknown>> }> {
  let out = '';
  const streams = [process.stdout, process.stderr];
  const originals = streams.map((stream) => stream.write.bind(stream));
  streams.forEach((stream, i) => {
    // Passed on as well: the test runner reports through the same streams.
    stream.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
      out += `${chunk.toString()}\n`;
      return originals[i]!(chunk, ...rest);
    }) as typeof stream.write;
  });
  try {
    const result = await work();
    // The runner's own messages carry no line breaks of their own: find each JSON line's start.
    const lines = out
      .split('\n')
      .map((line) => line.slice(Math.max(0, line.indexOf('{"level"'))))
      .filter((line) => line.startsWith('{"level"'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    return { result, lines };
  } finally {
    streams.forEach((stream, i) => (stream.write = originals[i] as typeof stream.write));
  }
}

const isRed = ([r, g, b]: number[]) => r! > 200 && g! < 60 && b! < 60;

describe('renderer › auto waits for the page to be finished', () => {
  let renderer: Renderer;
  let site: TestServer;

  before(async () => {
    site = await startTestServer({
      '/data': (_req, res) => {
        setTimeout(() => {
          res.writeHead(200, { 'content-type': 'text/plain', 'access-control-allow-origin': '*' });
          res.end('row fetched by a timer');
        }, 150);
      },
      '/raf-bar': html(RAF_BAR),
      '/late-row': html(`<p>static</p><script>window.addEventListener('load', async () => {
        const text = await (await fetch('/data')).text();
        const p = document.createElement('p'); p.textContent = text; document.body.append(p);
      })</script>`),
      '/pixel.png': (_req, res) => {
        res.writeHead(200, { 'content-type': 'image/png', 'access-control-allow-origin': '*' });
        res.end(RED_PNG);
      },
    });
    renderer = await warmRenderer();
  });
  after(async () => {
    await renderer?.close();
    await site?.close();
  });

  it('waits in page.html for a fetch a timer starts 300 ms after the load event, as for page.url', async () => {
    // Prepare
    const page = b64(`<p>static</p><script>window.addEventListener('load', () => setTimeout(async () => {
      const text = await (await fetch('${site.url}/data')).text();
      const p = document.createElement('p'); p.textContent = text; document.body.append(p);
    }, 300))</script>`);

    // Act
    const text = await pdfText(renderer, { html: page });

    // Assess
    assert.match(text, /row fetched by a timer/);
  });

  it('gives each wait step its own line in the timings: auto\'s settle holds the late fetch, load has none', async () => {
    // Act
    const auto = await renderRequest(renderer, { output: 'PDF', page: { url: `${site.url}/late-row` } });
    const load = await renderRequest(renderer, { output: 'PDF', page: { url: `${site.url}/late-row`, waitUntil: 'load' } });

    // Assess: the row answered 150 ms after its request is in, and the settle step waited for it
    assert.match((await readPdf(new Uint8Array(auto.body))).text.join(' '), /row fetched by a timer/);
    assert.ok((auto.timings.settle ?? 0) >= 150, `settle ${auto.timings.settle} ms`);
    assert.ok((auto.timings.wait ?? 0) >= (auto.timings.settle ?? 0));
    assert.equal(load.timings.settle, undefined);
  });

  it('captures a requestAnimationFrame animation at its end, for html and URL', async () => {
    // Act
    const inline = await renderImage(renderer, { html: b64(RAF_BAR) }, { viewport: oneX });
    const fromUrl = await renderImage(renderer, { url: `${site.url}/raf-bar`, adblock: false }, { viewport: oneX });

    // Assess: the bar's final top edge is 300 px above the bottom; mid-animation it is lower.
    for (const image of [inline, fromUrl]) {
      assert.ok(isRed(pngPixel(image.data, 50, 600 - 295)), 'the bar reached its full height');
    }
  });

  it('fast-forwards CSS animations and Web Animations to their end', async () => {
    // Act
    const css = await renderImage(renderer, { html: b64(CSS_SLIDE) }, { viewport: oneX });
    const waapi = await renderImage(renderer, { html: b64(WAAPI_SLIDE) }, { viewport: oneX });

    // Assess: the box sits at its final place, not at its start.
    const [r, , b] = pngPixel(css.data, 550, 50);
    assert.ok(b > 200 && r < 60, 'the CSS-animated box is at 500 px');
    assert.deepEqual(pngPixel(css.data, 50, 50).slice(0, 3), [255, 255, 255]);
    const [, g] = pngPixel(waapi.data, 550, 50);
    assert.ok(g > 100, 'the Web Animation box is at 500 px');
  });

  it('captures a page that never settles at the bound, logs why, and the next render works', async () => {
    // Act
    const { result: busy, lines } = await logged(() => renderRequest(renderer, { output: 'PDF', page: { html: b64(NEVER_SETTLES) } }));
    const next = await pdfText(renderer, { html: b64('<p>next render</p>') });

    // Assess: no timeout error (the budget is 20 s), the reason logged, and the browser still good.
    assert.ok(busy.body.length > 0);
    assert.ok(busy.timings.unsettled !== undefined, 'the request log line marks the render as unsettled');
    const warning = lines.find((line) => String(line.message).includes('did not settle'));
    assert.ok(warning, 'a warning says the page did not settle');
    assert.equal(warning.level, 'WARN');
    assert.ok((warning.reasons as string[]).includes('requestAnimationFrame loop running'), `reasons: ${String(warning.reasons)}`);
    assert.match(next, /next render/);
  });

  it('does not wait for an endless CSS animation: captured as it stands, without reaching the bound', async () => {
    // Act
    const { result, lines } = await logged(() => renderRequest(renderer, { output: 'PDF', page: { html: b64(ENDLESS_SPINNER) } }));

    // Assess
    assert.equal(result.timings.unsettled, undefined, 'settled, not cut off at the bound');
    assert.equal(lines.filter((line) => String(line.message).includes('did not settle')).length, 0);
    assert.ok(lines.some((line) => String(line.message).includes('endless animations')), 'the endless animation is noted');
  });

  it('loads lazy images below the fold, so a PDF and a full-page capture have them', async () => {
    // Act
    const page = { html: b64(lazyImages(`${site.url}/pixel.png`)) };
    const pdf = await renderPdf(renderer, page);
    const full = await renderImage(renderer, page, { viewport: oneX, fullPage: true });

    // Assess: printed, and painted where it sits in the full page (3000 px down, 200×100).
    const images = await pdfImages(new Uint8Array(pdf.data));
    assert.ok(images.some((image) => image.width === 20 && image.height === 10), 'the lazy image is printed');
    assert.ok(isRed(pngPixel(full.data, 100, 3008 + 50)), 'the lazy image is in the full-page capture');
  });
});
