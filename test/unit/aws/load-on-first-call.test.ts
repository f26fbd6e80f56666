import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loadOnFirstCall } from '../../../lib/aws/load-on-first-call.js';
import type { JobQueue, JobMessage } from '../../../lib/jobs/job-queue.js';

/** A queue that records what it was sent, standing for an adapter built from an SDK client. */
function recordingQueue(sent: JobMessage[]): JobQueue {
  return {
    sendJob: async (message) => void sent.push(message),
    sendWebhook: async () => undefined,
  };
}

describe('loadOnFirstCall', () => {
  it('builds nothing until a method is called, then builds the adapter once for every call', async () => {
    // Prepare
    const sent: JobMessage[] = [];
    let loads = 0;
    const queue = loadOnFirstCall<JobQueue>(async () => {
      loads += 1;
      return recordingQueue(sent);
    });
    assert.equal(loads, 0);
    // Act
    await Promise.all([queue.sendJob({ accountId: 'a', jobId: '1' }), queue.sendJob({ accountId: 'a', jobId: '2' })]);
    await queue.sendJob({ accountId: 'a', jobId: '3' });
    // Assess
    assert.equal(loads, 1);
    assert.deepEqual(sent.map((message) => message.jobId), ['1', '2', '3']);
  });

  it('fails the call whose load failed, and loads again at the next call', async () => {
    // Prepare: the first load fails (a chunk that could not be read, a client that could not be built)
    const sent: JobMessage[] = [];
    let loads = 0;
    const queue = loadOnFirstCall<JobQueue>(async () => {
      loads += 1;
      if (loads === 1) throw new Error('Cannot find module ./s3-stores.mjs');
      return recordingQueue(sent);
    });
    // Act / Assess
    await assert.rejects(queue.sendJob({ accountId: 'a', jobId: '1' }), /Cannot find module/);
    await queue.sendJob({ accountId: 'a', jobId: '2' });
    assert.equal(loads, 2);
    assert.deepEqual(sent.map((message) => message.jobId), ['2']);
  });

  it('is not mistaken for a promise, and refuses a name that is not a method of the adapter', async () => {
    // Prepare
    const queue = loadOnFirstCall<JobQueue>(async () => recordingQueue([]));
    // Act: awaiting the port itself must give the port back, not call a `then` on it
    const awaited = await Promise.resolve(queue);
    // Assess
    assert.equal(awaited, queue);
    await assert.rejects((queue as unknown as { sendJobs: () => Promise<void> }).sendJobs(), /sendJobs is not a method/);
  });
});
