import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { ChromiumMode, Renderer } from '../../../lib/render/index.js';
import { alive, browserPids } from '../../helpers/chromium-processes.js';
import { warmRenderer } from '../../helpers/local-egress.js';
import { html, startTestServer, type TestServer } from '../../helpers/test-server.js';
import { waitFor } from '../../helpers/wait-for.js';
import { b64, pdfText } from './render-fixtures.js';

/** Leaves a cookie and localStorage behind, then says so. */
const writer = `<p id="o">writer</p><script>
  document.cookie = 'left=behind; max-age=3600; path=/';
  localStorage.setItem('left', 'behind');
  document.getElementById('o').append(' written');
</script>`;

/** Prints what an earlier render could have left. */
const reader = `<p id="o">reader</p><script>
  document.getElementById('o').append(' cookie=[' + document.cookie + '] stored=[' + localStorage.getItem('left') + '] done');
</script>`;

// With a post-response phase (postResponse: true) the renderer leaves closing the used session,
// wiping state (single-process) and opening the next session to afterAnswer(), which the
// rendering functions call after each answer through their Lambda extension.
for (const mode of ['multi-process', 'single-process'] as ChromiumMode[]) {
  describe(`renderer › isolation work after the answer (${mode})`, () => {
    let renderer: Renderer;
    let site: TestServer;
    before(async () => {
      site = await startTestServer({ '/write': html(writer), '/read': html(reader) });
      renderer = await warmRenderer({ mode, postResponse: true });
    });
    after(async () => {
      await renderer?.close();
      await site?.close();
    });

    const write = () => pdfText(renderer, { url: `${site.url}/write`, adblock: false, waitForFunction: { pageFunction: 'document.body.textContent.includes("written")' } });
    const read = () => pdfText(renderer, { url: `${site.url}/read`, adblock: false, waitForFunction: { pageFunction: 'document.body.textContent.includes("done")' } });

    it('keeps the next render isolated with the post-response phase between them', async () => {
      // Act
      assert.match(await write(), /written/);
      await renderer.afterAnswer(AbortSignal.timeout(10_000));
      const text = await read();
      await renderer.afterAnswer(AbortSignal.timeout(10_000));

      // Assess
      assert.match(text, /cookie=\[\] stored=\[null\] done/);
    });

    it('keeps the next render isolated when no post-response phase came between them', async () => {
      // Act: the work left for after the answer is done before the next render instead
      assert.match(await write(), /written/);
      const text = await read();
      await renderer.afterAnswer(AbortSignal.timeout(10_000));

      // Assess
      assert.match(text, /cookie=\[\] stored=\[null\] done/);
    });
  });
}

describe('renderer › a worn browser replaced after the answer', () => {
  let renderer: Renderer;
  after(async () => {
    await renderer?.close();
  });

  it('launches the replacement in the post-response phase of the worn browser\'s last render, before the next render', async () => {
    // Prepare: two renders per browser
    const before = browserPids();
    renderer = await warmRenderer({ postResponse: true, rendersPerBrowser: 2 });
    const [first] = browserPids().filter((pid) => !before.includes(pid));
    assert.ok(first, 'no browser launched');

    // Act: its two renders, each followed by the post-response phase
    for (const label of ['one', 'two']) {
      assert.match(await pdfText(renderer, { html: b64(`<p>${label}</p>`) }), new RegExp(label));
      await renderer.afterAnswer(AbortSignal.timeout(15_000));
    }
    const running = browserPids().filter((pid) => !before.includes(pid));

    // Assess: the worn browser is gone and its replacement runs already
    assert.equal(alive(first), false, 'the worn browser still runs');
    assert.equal(running.length, 1, `browsers running: ${running.join(', ')}`);
    assert.notEqual(running[0], first);
    assert.match(await pdfText(renderer, { html: b64('<p>three</p>') }), /three/);
    assert.deepEqual(browserPids().filter((pid) => !before.includes(pid)), running, 'the next render used the replacement');
  });
});

/** Whether `pid` is gone, a zombie, or has SIGKILL pending: killed, whether or not it has finished dying. */
function killed(pid: number): boolean {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return true;
  }
  if (/^State:\s+Z/m.test(status)) return true;
  const mask = (name: string) => BigInt(`0x${new RegExp(`^${name}:\\s+(\\w+)`, 'm').exec(status)?.[1] ?? '0'}`);
  return ((mask('SigPnd') | mask('ShdPnd')) & (1n << 8n)) !== 0n;
}

describe('renderer › a post-response phase cut off at its bound', () => {
  let renderer: Renderer;
  before(async () => {
    renderer = await warmRenderer({ postResponse: true });
  });
  after(async () => {
    await renderer?.close();
  });

  it('kills a hung browser instead of waiting for it, and the next render launches a new one', async () => {
    // Prepare: a render, then its browser hangs (stopped) before the work after the answer
    assert.match(await pdfText(renderer, { html: b64('<p>before the hang</p>') }), /before the hang/);
    const [hung] = browserPids();
    assert.ok(hung, 'no browser process found');
    process.kill(hung, 'SIGSTOP');

    // Act: the post-response phase, bounded at 500 ms
    const settled = await Promise.race([
      renderer.afterAnswer(AbortSignal.timeout(500)).then(() => 'settled'),
      new Promise((resolve) => setTimeout(() => resolve('still waiting'), 15_000).unref()),
    ]);
    const killedAtCutOff = killed(hung);
    const text = await pdfText(renderer, { html: b64('<p>after the hang</p>') });

    // Assess: killed by the cut-off itself (not by a later fallback), and replaced
    assert.equal(settled, 'settled');
    assert.equal(killedAtCutOff, true, 'the hung browser was still there when the post-response phase ended');
    await waitFor('the hung browser killed', () => (alive(hung) ? undefined : true));
    assert.match(text, /after the hang/);
    assert.notDeepEqual(browserPids(), [hung]);
  });
});
