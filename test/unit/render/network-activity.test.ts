import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { HTTPRequest } from 'puppeteer-core';
import { createNetworkActivity } from '../../../lib/render/network-activity.js';

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
});
