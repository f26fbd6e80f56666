import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { captureReserveMs, startDeadline, WAIT_CAP_MS, waitAllowanceMs } from '../../lib/deadline.js';

/**
 * The waits that may give up (a page's load, selectors, settling) get what is left of the budget less the
 * capture's reserve, and never more than WAIT_CAP_MS in all: an async render's budget of up to 15 minutes
 * (issue 47) is for printing a long document, not for waiting on a page that never settles.
 */
describe('the time a render waits', () => {
  it("is a sync budget's remainder less the capture reserve", () => {
    const deadline = startDeadline(25_000);
    const allowance = waitAllowanceMs(deadline);
    assert.ok(allowance <= 25_000 - captureReserveMs(25_000) && allowance > 25_000 - captureReserveMs(25_000) - 100, String(allowance));
  });

  it("stops at the wait cap in a long async budget, counted from the render's start", () => {
    const started = Date.now();
    const deadline = startDeadline(870_000, started);
    assert.ok(waitAllowanceMs(deadline) <= WAIT_CAP_MS && waitAllowanceMs(deadline) > WAIT_CAP_MS - 100);
    // 100 s into the render (started earlier), 20 s of waiting are left, not 765
    const later = startDeadline(870_000, started - 100_000);
    assert.ok(waitAllowanceMs(later) <= WAIT_CAP_MS - 100_000 && waitAllowanceMs(later) > WAIT_CAP_MS - 100_100, String(waitAllowanceMs(later)));
    // and none once the cap has passed, with most of the budget left
    assert.equal(waitAllowanceMs(startDeadline(870_000, started - 200_000)), 0);
  });
});
