import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RenderTimeoutError } from '../../../lib/errors.js';
import type { PageSession, SessionFactory } from '../../../lib/render/browser/browser-session.js';
import type { LaunchedBrowser } from '../../../lib/render/browser/launch-browser.js';
import { createRenderer, type Renderer } from '../../../lib/render/index.js';
import type { RenderInput } from '../../../lib/schemas/render-requests.js';
import { readImage, readPdf } from '../../helpers/documents.js';
import { localEgress } from '../../helpers/local-egress.js';
import { waitFor } from '../../helpers/wait-for.js';
import { b64, renderRequest } from './render-fixtures.js';

/** The request of issue 25: a JPEG of a small HTML page at a 300×200 viewport. */
const SMALL_JPEG: RenderInput = {
  output: 'IMAGE',
  page: { html: b64('<h1>Invoice 42</h1><p>Total: 12.00 EUR</p>') },
  screenshot: { type: 'jpeg', viewport: { width: 300, height: 200 } },
};

/**
 * The real session factory with a fault injected: the openings `stuck` picks
 * (by the browser's launch number and the opening's number in that browser,
 * both from 1) do not settle until `release()`, as a session caught in the
 * middle of its opening by the freeze of its instance was seen not to (issue
 * 25). `closedLate` lists the held sessions that were closed once released.
 */
function sessionsWithFault(stuck: (launch: number, opening: number) => boolean) {
  let launches = 0;
  const held: Array<() => void> = [];
  const closedLate: PageSession[] = [];
  const factory = (_launched: LaunchedBrowser, real: SessionFactory): SessionFactory => {
    launches += 1;
    const launch = launches;
    let openings = 0;
    return {
      open(options) {
        openings += 1;
        if (!stuck(launch, openings)) return real.open(options);
        return new Promise<void>((resolve) => held.push(resolve))
          .then(() => real.open(options))
          .then((session): PageSession => ({
            ...session,
            dispose: () => {
              closedLate.push(session);
              return session.dispose();
            },
          }));
      },
    };
  };
  return { factory, launches: () => launches, closedLate, release: () => held.splice(0).forEach((resolve) => resolve()) };
}

async function withRenderer(sessionFactory: (launched: LaunchedBrowser, real: SessionFactory) => SessionFactory, body: (renderer: Renderer) => Promise<void>) {
  // A short session bound keeps the worst case (late spare, fresh session, relaunch, session again) well inside the budget on a loaded machine.
  const renderer = createRenderer({ mode: 'multi-process', timeoutMs: 20_000, egress: localEgress, sessionFactory, stepBoundsMs: { session: 2_500 } });
  try {
    await renderer.warm();
    await body(renderer);
  } finally {
    await renderer.close();
  }
}

const isJpeg = (body: Buffer) => /^jpe?g$/.test(readImage(new Uint8Array(body)).type);

describe('renderer › a session that does not open (issue 25)', () => {
  it('answers when the session opened ahead never settles, closes that session when it comes, and keeps serving', async () => {
    // Prepare: the warm-up opened session 1; the first render takes it and opens session 2 ahead, which hangs
    const fault = sessionsWithFault((launch, opening) => launch === 1 && opening === 2);
    await withRenderer(fault.factory, async (renderer) => {
      // Act
      const first = await renderRequest(renderer, SMALL_JPEG);
      const second = await renderRequest(renderer, SMALL_JPEG);
      fault.release();
      const third = await renderRequest(renderer, SMALL_JPEG);

      // Assess
      assert.ok(isJpeg(first.body), 'the first render took the session opened at the warm-up');
      assert.ok(isJpeg(second.body), 'the render whose spare hung answered with its image, not a 504 at the end of the budget');
      assert.ok(isJpeg(third.body), 'the instance keeps serving');
      assert.equal(fault.launches(), 1, 'one late spare is no reason to replace the browser');
      await waitFor('the late session to be closed', () => (fault.closedLate.length === 1 ? true : undefined), 10_000);
    });
  });

  it('replaces a browser that gives no session within the bound and renders in the new one', async () => {
    // Prepare: after the warm-up's session, the first browser never opens another one
    const fault = sessionsWithFault((launch, opening) => launch === 1 && opening >= 2);
    await withRenderer(fault.factory, async (renderer) => {
      // Act
      const first = await renderRequest(renderer, SMALL_JPEG);
      const second = await renderRequest(renderer, SMALL_JPEG);
      fault.release();

      // Assess
      assert.ok(isJpeg(first.body));
      assert.ok(isJpeg(second.body), 'rendered in the replacement browser');
      assert.equal(fault.launches(), 2, 'the browser that gave no session was replaced');
    });
  });

  it('sets aside a browser that gives no session while another render runs in it: that render finishes, then the browser goes', async () => {
    // Prepare: after the warm-up's session, the first browser never opens another one; a slow render holds it
    const fault = sessionsWithFault((launch, opening) => launch === 1 && opening >= 2);
    const launched: LaunchedBrowser[] = [];
    const factory = (browser: LaunchedBrowser, real: SessionFactory) => {
      launched.push(browser);
      return fault.factory(browser, real);
    };
    const slowPage = b64('<p>slow</p><script>setTimeout(() => { window.done = true; document.body.append(" and finished"); }, 5000)</script>');
    await withRenderer(factory, async (renderer) => {
      // Act
      const slow = renderRequest(renderer, { output: 'PDF', page: { html: slowPage, waitForFunction: { pageFunction: 'window.done === true' } } });
      await new Promise((resolve) => setTimeout(resolve, 300));
      const meanwhile = await renderRequest(renderer, SMALL_JPEG);
      const slowWhileSetAside = launched[0]!.browser.connected;
      const slowResult = await slow;
      fault.release();

      // Assess
      assert.ok(isJpeg(meanwhile.body), 'the render that got no session was served by a new browser');
      assert.equal(fault.launches(), 2);
      assert.ok(slowWhileSetAside, 'the first browser was not killed while a render ran in it');
      const text = (await readPdf(new Uint8Array(slowResult.body))).text.join(' ');
      assert.match(text, /slow\s+and finished/, 'the render under way in the set-aside browser finished');
      await waitFor('the set-aside browser to be killed after its last render', () => (launched[0]!.browser.connected ? undefined : true), 10_000);
    });
  });

  it('fails with a RenderTimeoutError naming the session step when no browser gives one, then serves again', async () => {
    // Prepare: the first browser opens its warm-up session only, the second none; the third is healthy
    const fault = sessionsWithFault((launch, opening) => (launch === 1 && opening >= 2) || launch === 2);
    await withRenderer(fault.factory, async (renderer) => {
      await renderRequest(renderer, SMALL_JPEG);

      // Act
      const failure = await renderRequest(renderer, SMALL_JPEG).then(
        () => undefined,
        (error: unknown) => error,
      );
      const after = await renderRequest(renderer, SMALL_JPEG);
      fault.release();

      // Assess
      assert.ok(failure instanceof RenderTimeoutError, `a RenderTimeoutError (504), got ${String(failure)}`);
      assert.equal((failure as { step?: string }).step, 'session', 'the error names the step that hung');
      assert.match(failure.message, /"session".*\d+ ms/, 'and its message names the step and its elapsed time');
      assert.ok(isJpeg(after.body), 'the next render is served by a new browser');
      assert.ok(fault.launches() >= 3, 'the browser that gave none was replaced too');
    });
  });
});
