import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defaultAdmissionLimits } from '../../../lib/render/admission.js';
import { createRenderer, type Renderer } from '../../../lib/render/index.js';
import { localEgress } from '../../helpers/local-egress.js';
import { assertContractAnswer, buildFuzzStack } from '../../unit/fuzz/fuzz-stack.js';

/**
 * A burst of raw renders on one instance, through the real middleware stack
 * and the real renderer (one Chromium). Lambda runs one invocation per
 * instance, as the local runner does; a process that takes renders
 * concurrently (the renderer used as a library) must still hold: what its
 * admission lets in renders, what it turns away is a clean 503 with
 * Retry-After, and nothing is cut short or left to time out.
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
      if (answer.statusCode === 429) assertContractAnswer(answer, `render ${n}`);
      if (answer.statusCode === 503) {
        const body = JSON.parse(String(answer.body)) as Record<string, unknown>;
        assert.deepEqual(Object.keys(body), ['message'], `render ${n}`);
        assert.match(String(body.message), /busy/, `render ${n} says why`);
      }
      if (answer.statusCode !== 200) {
        assert.match(answer.headers?.['retry-after'] ?? '', /^\d+$/, `render ${n} has Retry-After`);
      } else {
        assert.equal(answer.headers?.['content-type'], 'application/pdf');
      }
    }
    // The admission's default on this machine: two renders per core run at once (those never wait,
    // so they succeed however loaded the machine is), four times as many wait, the rest are turned away.
    const { concurrency, queued } = defaultAdmissionLimits();
    assert.ok(statuses.filter((s) => s === 200).length >= Math.min(BURST, concurrency), `the renders let in at once succeed: ${statuses.join(',')}`);
    assert.ok(statuses.filter((s) => s === 503).length >= BURST - concurrency - queued, `the renders past the queue are turned away: ${statuses.join(',')}`);
    assert.equal(afterwards.statusCode, 200);
  });
});
