import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Renderer } from '../../../lib/render/index.js';
import { rendererProcessCount } from '../../helpers/chromium-processes.js';
import { warmRenderer } from '../../helpers/local-egress.js';
import { b64, pdfText } from './render-fixtures.js';

async function settledCount(): Promise<number> {
  // A session opens within a second or so; wait until the count holds still.
  let last = -1;
  for (let i = 0; i < 40; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 150));
    const now = rendererProcessCount();
    if (now === last && i >= 4) return now;
    last = now;
  }
  return last;
}

// On Lambda the process tree is frozen once the answer is sent, so the session of the next render
// is opened while a render is under way; `anticipate` starts it earlier, as the invocation begins.
describe('renderer › sessions opened ahead of the renders', () => {
  let renderer: Renderer;
  before(async () => {
    renderer = await warmRenderer();
  });
  after(async () => {
    await renderer?.close();
  });

  it('anticipate opens one more session ahead, never more than two, and a render takes one of them', async () => {
    // Prepare: the warm-up left one session ready
    const warm = await settledCount();

    // Act
    renderer.anticipate();
    const anticipated = await settledCount();
    renderer.anticipate();
    renderer.anticipate();
    const again = await settledCount();
    const text = await pdfText(renderer, { html: b64('<p>took a session opened ahead</p>') });
    const afterRender = await settledCount();

    // Assess
    assert.equal(anticipated, warm + 1, 'anticipate opened the next session');
    assert.equal(again, warm + 1, 'no more than two sessions ahead');
    assert.match(text, /took a session opened ahead/);
    assert.equal(afterRender, warm, 'the render used one of the two and closed it; the other waits');
  });
});
