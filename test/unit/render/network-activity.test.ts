import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { HTTPRequest } from 'puppeteer-core';
import { createNetworkActivity } from '../../../lib/render/browser/network-activity.js';

const request = () => ({}) as HTTPRequest;

describe('createNetworkActivity', () => {
  it('is quiet at once when nothing is in flight and no idle time is asked', async () => {
    // Prepare
    const activity = createNetworkActivity();

    // Act
    const quiet = await activity.waitForQuiet({ idleMs: 0, until: Date.now() });

    // Assess
    assert.equal(quiet, true);
  });

  it('is not quiet while a fresh request is in flight, and gives up at the bound', async () => {
    // Prepare
    const activity = createNetworkActivity();
    activity.started(request());

    // Act
    const quiet = await activity.waitForQuiet({ idleMs: 0, until: Date.now() + 60, freshMs: 10_000 });

    // Assess
    assert.equal(quiet, false);
  });

  it('becomes quiet when the request ends', async () => {
    // Prepare
    const activity = createNetworkActivity();
    const pending = request();
    activity.started(pending);
    setTimeout(() => activity.ended(pending), 30);

    // Act
    const quiet = await activity.waitForQuiet({ idleMs: 20, until: Date.now() + 5_000, freshMs: 10_000 });

    // Assess
    assert.equal(quiet, true);
  });

  it('ignores up to two old requests (long polls) but not a third', async () => {
    // Prepare
    const activity = createNetworkActivity();
    activity.started(request());
    activity.started(request());

    // Act
    const twoOld = await activity.waitForQuiet({ idleMs: 0, until: Date.now() + 1_000, freshMs: 0 });
    activity.started(request());
    const threeOld = await activity.waitForQuiet({ idleMs: 0, until: Date.now() + 60, freshMs: 0 });

    // Assess
    assert.equal(twoOld, true);
    assert.equal(threeOld, false);
  });
  it('counts quiet time already behind: a network idle for long answers at once', async () => {
    // Prepare: a request that ended 80 ms ago.
    const activity = createNetworkActivity();
    const done = request();
    activity.started(done);
    activity.ended(done);
    await new Promise((resolve) => setTimeout(resolve, 80));

    // Act: asked for 50 ms of quiet with no time left to wait, it can only answer from the past.
    const quiet = await activity.waitForQuiet({ idleMs: 50, until: Date.now() });
    const notYet = await activity.waitForQuiet({ idleMs: 500, until: Date.now() });

    // Assess
    assert.equal(quiet, true);
    assert.equal(notYet, false);
  });

  it('counts an old request as quiet only from the moment it became old', async () => {
    // Prepare: a long poll started now, old after 30 ms.
    const activity = createNetworkActivity();
    activity.started(request());

    // Act
    const atOnce = await activity.waitForQuiet({ idleMs: 40, until: Date.now(), freshMs: 30 });
    const later = await activity.waitForQuiet({ idleMs: 40, until: Date.now() + 2_000, freshMs: 30 });

    // Assess
    assert.equal(atOnce, false);
    assert.equal(later, true);
  });
});
