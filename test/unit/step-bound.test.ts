import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RenderStepTimeoutError, RenderTimeoutError } from '../../lib/errors.js';
import { startDeadline } from '../../lib/deadline.js';
import { step } from '../../lib/step-bound.js';

const never = <T>() => new Promise<T>(() => undefined);

describe('step (the bound of one step of a render)', () => {
  it('resolves as its work does and leaves no step under way', async () => {
    // Prepare
    const deadline = startDeadline(10_000);

    // Act
    const value = await step(deadline, 'setup', Promise.resolve(42));

    // Assess
    assert.equal(value, 42);
    assert.equal(deadline.underWay, undefined);
  });

  it('rejects with a 504 RenderStepTimeoutError naming the step, its bound and its elapsed time when the work does not settle', async () => {
    // Prepare
    const deadline = startDeadline(10_000, Date.now(), { capture: 30 });

    // Act
    const error = await step(deadline, 'capture', never<Buffer>()).then(() => undefined, (e: unknown) => e);

    // Assess
    assert.ok(error instanceof RenderStepTimeoutError, `got ${String(error)}`);
    assert.ok(error instanceof RenderTimeoutError, 'a kind of render timeout: the same 504 and job code');
    assert.equal(error.statusCode, 504);
    assert.equal(error.step, 'capture');
    assert.equal(error.boundMs, 30);
    assert.ok((error.stepElapsedMs ?? 0) >= 30, `elapsed ${error.stepElapsedMs}`);
    assert.match(error.message, /step "capture" did not finish within its bound of 30 ms \(\d+ ms elapsed\)/);
  });

  it('hands what the work yields after its bound to late, and nothing when it came in time', async () => {
    // Prepare
    let resolveLate: (value: string) => void = () => undefined;
    const lateWork = new Promise<string>((resolve) => (resolveLate = resolve));
    const closed: string[] = [];

    // Act
    await step(undefined, 'session', Promise.resolve('in time'), { boundMs: 1_000, late: (v) => closed.push(v) });
    await step(undefined, 'session', lateWork, { boundMs: 10, late: (v) => closed.push(v) }).catch(() => undefined);
    resolveLate('too late');
    await new Promise((resolve) => setImmediate(resolve));

    // Assess
    assert.deepEqual(closed, ['too late']);
  });

  it('records the step under way on the render clock while it runs, and clears it when it ends', async () => {
    // Prepare
    const deadline = startDeadline(10_000);
    let release: () => void = () => undefined;
    const work = new Promise<void>((resolve) => (release = resolve));

    // Act
    const running = step(deadline, 'wait', work);
    const during = deadline.underWay?.step;
    release();
    await running;

    // Assess
    assert.equal(during, 'wait');
    assert.equal(deadline.underWay, undefined);
  });

  it('never bounds a step past the end of the budget', () => {
    // Prepare
    const nearlySpent = startDeadline(100, Date.now(), { session: 60_000 });

    // Act
    const bound = nearlySpent.boundOf('session');

    // Assess
    assert.ok(bound <= 100, `bound ${bound}`);
    assert.equal(startDeadline(60_000).boundOf('session'), 5_000, 'the default session bound');
  });
});

describe('RenderTimeoutError (the budget spent)', () => {
  it('names the step that was under way and for how long, when known', () => {
    assert.equal(new RenderTimeoutError(25_000).message, 'Rendering did not finish within 25000 ms');
    assert.equal(
      new RenderTimeoutError(25_000, { step: 'navigation', stepElapsedMs: 19_500 }).message,
      'Rendering did not finish within 25000 ms (step "navigation" still running after 19500 ms)',
    );
  });
});
