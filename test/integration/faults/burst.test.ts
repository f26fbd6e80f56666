import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createRenderer, type Renderer } from '../../../lib/render/index.js';
import { localEgress } from '../../helpers/local-egress.js';
import { assertContractAnswer, buildFuzzStack } from '../../unit/fuzz/fuzz-stack.js';

/**
 * A burst of raw renders on one instance, through the real middleware stack
 * and the real renderer (one Chromium). Lambda runs one invocation per
 * instance; the local runner and a warm container under a burst of
 * concurrent invocations in one process do not, so the renderer must hold.
 */

const b64 = (text: string) => Buffer.from(text).toString('base64');
const BURST = 40;

describe('a burst of concurrent raw renders on one instance', { timeout: 180_000 }, () => {
  let renderer: Renderer;

  before(async () => {
    renderer = createRenderer({ mode: 'multi-process', timeoutMs: 25_000, egress: localEgress });
    await renderer.warm();
  });
  after(async () => {
    await renderer?.close();
  });

  it(`answers each of ${BURST} concurrent renders with the file or a clean 429/503 with Retry-After, then answers normally`, async () => {
    // Prepare
    const stack = buildFuzzStack({ renderer });
    const body = (n: number) => JSON.stringify({ page: { html: b64(`<h1>burst ${n}</h1><p>${'text '.repeat(200)}</p>`) }, pdf: { format: 'a4' } });

    // Act
    const answers = await Promise.all(Array.from({ length: BURST }, (_, n) => stack.call('pdf', body(n))));
    const afterwards = await stack.call('pdf', body(BURST));

    // Assess
    const statuses = answers.map((a) => a.statusCode);
    for (const [n, answer] of answers.entries()) {
      assert.ok([200, 429, 503].includes(answer.statusCode), `render ${n}: ${answer.statusCode} ${String(answer.body).slice(0, 200)}`);
      if (answer.statusCode !== 200) {
        assertContractAnswer(answer, `render ${n}`);
        assert.match(answer.headers?.['retry-after'] ?? '', /^\d+$/, `render ${n} has Retry-After`);
      } else {
        assert.equal(answer.headers?.['content-type'], 'application/pdf');
      }
    }
    assert.ok(statuses.includes(200), `some renders succeed: ${statuses.join(',')}`);
    assert.equal(afterwards.statusCode, 200);
  });
});
