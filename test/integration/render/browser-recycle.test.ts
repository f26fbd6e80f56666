import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createRenderer, type Renderer } from '../../../lib/render/index.js';
import { alive, browserPids } from '../../helpers/chromium-processes.js';
import { localEgress } from '../../helpers/local-egress.js';
import { html, startTestServer } from '../../helpers/test-server.js';
import { b64, pdfText } from './render-fixtures.js';

async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 100 && alive(pid); i += 1) await new Promise((resolve) => setTimeout(resolve, 100));
  return !alive(pid);
}

describe('renderer › a browser is replaced after a number of renders', () => {
  const renderers: Renderer[] = [];
  after(async () => {
    for (const renderer of renderers) await renderer.close();
  });

  it('serves N renders per browser, then the next render gets a new one and the old one is gone', async () => {
    // Prepare
    const renderer = createRenderer({ mode: 'multi-process', timeoutMs: 20_000, egress: localEgress, rendersPerBrowser: 3 });
    renderers.push(renderer);
    const seen: number[] = [];

    // Act
    for (let i = 0; i < 7; i += 1) {
      assert.match(await pdfText(renderer, { html: b64(`<p>render ${i}</p>`) }), new RegExp(`render ${i}`));
      seen.push(...browserPids().filter((pid) => !seen.includes(pid)));
    }

    // Assess: browsers came one after the other, never two left running
    assert.equal(seen.length, 3, `three browsers for seven renders at three each, saw ${seen.join(', ')}`);
    for (const pid of seen.slice(0, 2)) assert.ok(await gone(pid), `browser ${pid} was stopped`);
  });

  it('lets renders in flight on a worn browser finish while the next render uses a new one', async () => {
    // Prepare: a page that takes a moment, so that three renders overlap
    const site = await startTestServer({ '/slow': (_req, res) => void setTimeout(() => html('<p>slow page</p>')(_req, res), 800) });
    const renderer = createRenderer({ mode: 'multi-process', timeoutMs: 20_000, egress: localEgress, rendersPerBrowser: 2 });
    renderers.push(renderer);
    const before = browserPids();
    await renderer.warm();
    const [first] = browserPids().filter((pid) => !before.includes(pid));

    // Act: the first two use up the browser; the third must not kill them
    const texts = await Promise.all([0, 1, 2].map(() => pdfText(renderer, { url: `${site.url}/slow`, adblock: false })));

    // Assess
    for (const text of texts) assert.match(text, /slow page/);
    assert.ok(first !== undefined && (await gone(first)), 'the worn browser went once its renders had ended');
    await site.close();
  });

  it('launches the replacement alongside the worn browser\'s last render, not after it', async (t) => {
    // Prepare: the last render on the first browser waits for a page held until the test lets it go
    const held: Array<() => void> = [];
    const site = await startTestServer({ '/held': (req, res) => void held.push(() => html('<p>last on the old browser</p>')(req, res)) });
    const renderer = createRenderer({ mode: 'multi-process', timeoutMs: 20_000, egress: localEgress, rendersPerBrowser: 2 });
    renderers.push(renderer);
    t.after(async () => {
      for (const release of held) release();
      await site.close();
    });
    const before = browserPids();
    await renderer.warm();
    const [first] = browserPids().filter((pid) => !before.includes(pid));
    await pdfText(renderer, { html: b64('<p>first</p>') });

    // Act: while that render cannot end, another browser starts
    const last = pdfText(renderer, { url: `${site.url}/held`, adblock: false });
    let replacement: number | undefined;
    for (let waited = 0; replacement === undefined && waited < 10_000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      replacement = browserPids().find((pid) => !before.includes(pid) && pid !== first);
    }
    // Let the page go once the browser has asked for it.
    for (let waited = 0; held.length === 0 && waited < 10_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    for (const release of held.splice(0)) release();
    const lastText = await last;
    const next = await pdfText(renderer, { html: b64('<p>on the replacement</p>') });

    // Assess
    assert.ok(replacement !== undefined, 'no replacement browser while the last render was in flight');
    assert.match(lastText, /last on the old browser/);
    assert.match(next, /on the replacement/);
    assert.ok(first !== undefined && (await gone(first)), 'the worn browser went once its last render had ended');
    assert.ok(browserPids().includes(replacement), 'the next render ran on the replacement');
  });

  it('keeps Chromium\'s shared-memory files in the profile directory, which goes with the browser', async () => {
    // Prepare
    const renderer = createRenderer({ mode: 'multi-process', timeoutMs: 20_000, egress: localEgress });
    renderers.push(renderer);
    const before = browserPids();
    await pdfText(renderer, { html: b64('<p>shared memory</p>') });
    const [pid] = browserPids().filter((candidate) => !before.includes(candidate));
    assert.ok(pid !== undefined);

    // Act
    const profile = /--user-data-dir=(\S+)/.exec(readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' '))?.[1] as string;
    const shared = readdirSync(`/proc/${pid}/fd`)
      .map((fd) => {
        try {
          return readlinkSync(`/proc/${pid}/fd/${fd}`);
        } catch {
          return '';
        }
      })
      .filter((target) => target.includes('.org.chromium.Chromium.'));

    // Assess: a browser killed before unlinking one leaves nothing outside its profile, deleted with it
    assert.ok(shared.length > 0, 'Chromium maps shared memory from files (--disable-dev-shm-usage)');
    for (const target of shared) assert.ok(target.startsWith(`${profile}/`), `${target} is in ${profile}`);
  });
});
