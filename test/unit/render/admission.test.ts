import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startDeadline } from '../../../lib/deadline.js';
import { createAdmission, RendererBusyError } from '../../../lib/render/admission.js';

/** A render that ends when the test says so. */
function heldRender() {
  let end!: () => void;
  const ended = new Promise<void>((resolve) => (end = resolve));
  let started = false;
  return {
    work: async () => {
      started = true;
      await ended;
      return 'done';
    },
    end: () => end(),
    get started() {
      return started;
    },
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('render admission', () => {
  it('runs at most `concurrency` renders at once and lets the next waiting one in as each ends, in order', async () => {
    // Prepare
    const admission = createAdmission({ concurrency: 2, queued: 5 });
    const renders = Array.from({ length: 4 }, heldRender);
    const deadline = startDeadline(30_000);

    // Act
    const results = renders.map((r) => admission.run(r.work, deadline));
    await tick();
    const startedAtFirst = renders.map((r) => r.started);
    renders[1]!.end();
    await tick();
    const startedAfterOneEnded = renders.map((r) => r.started);

    // Assess
    assert.deepEqual(startedAtFirst, [true, true, false, false]);
    assert.deepEqual(startedAfterOneEnded, [true, true, true, false]);
    assert.equal(admission.running, 2);
    assert.equal(admission.waiting, 1);
    for (const r of renders) r.end();
    assert.deepEqual(await Promise.all(results), ['done', 'done', 'done', 'done']);
    assert.equal(admission.running, 0);
    assert.equal(admission.waiting, 0);
  });

  it('turns a render away at once with a 503 and Retry-After when the queue is full, and never runs it', async () => {
    // Prepare
    const admission = createAdmission({ concurrency: 1, queued: 1 });
    const running = heldRender();
    const waiting = heldRender();
    const refused = heldRender();
    const deadline = startDeadline(30_000);
    const first = admission.run(running.work, deadline);
    const second = admission.run(waiting.work, deadline);

    // Act
    const outcome = await admission.run(refused.work, deadline).then(() => undefined, (error: unknown) => error);

    // Assess
    assert.ok(outcome instanceof RendererBusyError, String(outcome));
    assert.equal(outcome.statusCode, 503);
    assert.equal(outcome.expose, true);
    assert.match(outcome.headers['retry-after'] ?? '', /^[1-9]\d*$/);
    assert.equal(refused.started, false);
    running.end();
    waiting.end();
    assert.deepEqual(await Promise.all([first, second]), ['done', 'done']);
  });

  it('turns a waiting render away once half its budget is gone, and the place it waited for goes to the next', async () => {
    // Prepare
    const admission = createAdmission({ concurrency: 1, queued: 5 });
    const running = heldRender();
    const impatient = heldRender();
    const patient = heldRender();
    const first = admission.run(running.work, startDeadline(30_000));
    const waited = admission.run(impatient.work, startDeadline(200)).then(() => undefined, (error: unknown) => error);
    const later = admission.run(patient.work, startDeadline(30_000));

    // Act
    const outcome = await waited;
    running.end();
    await tick();

    // Assess
    assert.ok(outcome instanceof RendererBusyError, String(outcome));
    assert.equal(impatient.started, false);
    assert.equal(patient.started, true);
    patient.end();
    assert.deepEqual(await Promise.all([first, later]), ['done', 'done']);
    assert.equal(admission.running, 0);
  });

  it('frees the place of a render that fails', async () => {
    // Prepare
    const admission = createAdmission({ concurrency: 1, queued: 1 });
    const deadline = startDeadline(30_000);

    // Act
    const failed = await admission.run(async () => Promise.reject(new Error('boom')), deadline).then(() => undefined, (error: unknown) => error);
    const next = await admission.run(async () => 'next', deadline);

    // Assess
    assert.match(String(failed), /boom/);
    assert.equal(next, 'next');
    assert.equal(admission.running, 0);
  });
});
