import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { createEgressPolicy } from '../../lib/net/index.js';
import { b64, startService, type RunningService } from '../helpers/service.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { handlebarsRequest, oddUrl } from '../unit/fuzz/arbitraries.js';

/**
 * The parts of fuzzing only a real render exercises, against the running
 * service (`npm start`'s stack, real Chromium): URLs that pass validation must
 * not fail with a 5xx when Chromium loads them, when the file is uploaded to
 * them, or when the webhook calls them; and a burst of concurrent raw renders
 * gets clean answers. Today's local runner serves requests concurrently in
 * one process (#12 changes that to one invocation per instance).
 */

const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
const publicLiterals = createEgressPolicy();

/** Skips URLs whose host is a public IP literal: with no route out, their connections would wait out the budget. */
function offline(url: string): boolean {
  try {
    return publicLiterals.judgeHost(new URL(url.trim()).hostname).kind !== 'address';
  } catch {
    return true;
  }
}

type Answer = { status: number; headers: Headers; body: Record<string, unknown> | undefined };

async function answerOf(response: Response): Promise<Answer> {
  const text = await response.text();
  let body: Record<string, unknown> | undefined;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, body };
}

/** Contract shape of an error answer (400: message, code, fields; others: message). */
function assertErrorShape(answer: Answer, label: string): void {
  assert.ok(answer.body, `${label}: an error answer is JSON`);
  if (answer.status === 400) assert.deepEqual(Object.keys(answer.body).sort(), ['code', 'fields', 'message'], label);
  else assert.deepEqual(Object.keys(answer.body), ['message'], label);
}

describe('the running service under fuzzed URLs and a burst', { timeout: 600_000 }, () => {
  let service: RunningService;
  let token: string;
  let receiver: TestServer;

  before(async () => {
    receiver = await startTestServer({ '/put': (_req, res) => res.writeHead(200).end(), '/hook': (_req, res) => res.writeHead(204).end() });
    service = await startService();
    // A high rate, so the burst meets the renderer rather than the rate limit.
    token = (await service.tokens('create', '--rate', '1000')).stdout.trim();
  });
  after(async () => {
    await service?.stop();
    await receiver?.close();
  });

  it(`never answers 5xx when Chromium loads a URL that passed validation (seed ${SEED})`, async () => {
    await fc.assert(
      fc.asyncProperty(oddUrl.filter(offline), async (url) => {
        // Act
        const answer = await answerOf(await service.request('/v1/screenshot', { json: { page: { url, adblock: false } }, token }));

        // Assess
        assert.ok(answer.status < 500, `page.url=${JSON.stringify(url)}: ${answer.status} ${JSON.stringify(answer.body)}`);
        if (answer.status !== 200) assertErrorShape(answer, url);
      }),
      { numRuns: 60, seed: SEED, endOnFailure: true, includeErrorInReport: true },
    );
  });

  it(`never answers 5xx when the file is uploaded to a pre-signed URL that passed validation (seed ${SEED})`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(oddUrl.filter(offline), fc.constant(`${receiver.url}/put`)), async (preSignedUrl) => {
        // Act
        const answer = await answerOf(await service.request('/v1/pdf/sync', { json: { page: { html: b64('<p>x</p>') }, storage: { preSignedUrl } }, token }));

        // Assess
        assert.ok(answer.status < 500, `storage.preSignedUrl=${JSON.stringify(preSignedUrl)}: ${answer.status} ${JSON.stringify(answer.body)}`);
        if (answer.status === 200) assert.ok(['UPLOADED', 'FAILED'].includes(String(answer.body?.signedUrlStatus)));
        else assertErrorShape(answer, preSignedUrl);
      }),
      { numRuns: 40, seed: SEED, endOnFailure: true, includeErrorInReport: true },
    );
  });

  it(`records a first webhook attempt, never a thrown one, for every accepted webhook URL (seed ${SEED})`, async () => {
    // Prepare
    const urls = fc.sample(oddUrl.filter(offline), { numRuns: 12, seed: SEED });
    const accepted: { url: string; id: string }[] = [];

    // Act
    for (const url of urls) {
      const answer = await answerOf(await service.request('/v1/pdf/async', { json: { page: { html: b64('<p>x</p>') }, webhook: { url } }, token }));
      assert.ok(answer.status === 201 || answer.status === 400, `webhook.url=${JSON.stringify(url)}: ${answer.status} ${JSON.stringify(answer.body)}`);
      if (answer.status === 201) accepted.push({ url, id: String(answer.body?.id) });
      else assertErrorShape(answer, url);
    }

    // Assess: each accepted job finishes and its first webhook attempt is recorded (delivered or failed with a reason).
    for (const { url, id } of accepted) {
      let job: { status: string; webhook: { status: string; attempts: number } } | undefined;
      for (let i = 0; i < 300; i++) {
        job = (await (await service.request(`/v1/jobs/${id}`, { token })).json()) as typeof job;
        if (job && job.webhook.attempts >= 1 && job.webhook.status !== 'PENDING') break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      assert.equal(job?.status, 'COMPLETED', `${url}: ${JSON.stringify(job)}`);
      assert.ok((job?.webhook.attempts ?? 0) >= 1, `${url}: the first attempt was recorded: ${JSON.stringify(job)}`);
    }
  });

  it(`never answers 5xx when Chromium renders what a random Handlebars template produced (seed ${SEED})`, async () => {
    await fc.assert(
      fc.asyncProperty(handlebarsRequest, async (json) => {
        // Act
        const answer = await answerOf(await service.request('/v1/pdf', { json, token }));

        // Assess
        assert.ok(answer.status < 500, `${JSON.stringify(json)}: ${answer.status} ${JSON.stringify(answer.body)}`);
        if (answer.status !== 200) assertErrorShape(answer, 'template');
      }),
      { numRuns: 30, seed: SEED, endOnFailure: true, includeErrorInReport: true },
    );
  });

  it('answers each of 40 concurrent raw renders with the file or a clean 429/503 with Retry-After, never a reset, and normally right after', async () => {
    // Act: a socket reset would reject the fetch and fail Promise.all.
    const answers = await Promise.all(
      Array.from({ length: 40 }, async (_, n) =>
        answerOf(await service.request('/v1/pdf', { json: { page: { html: b64(`<h1>burst ${n}</h1>`) } }, token })),
      ),
    );
    const afterwards = await answerOf(await service.request('/v1/pdf', { json: { page: { html: b64('<p>after</p>') } }, token }));

    // Assess
    for (const [n, answer] of answers.entries()) {
      assert.ok([200, 429, 503].includes(answer.status), `render ${n}: ${answer.status} ${JSON.stringify(answer.body)}`);
      if (answer.status !== 200) {
        assertErrorShape(answer, `render ${n}`);
        assert.match(answer.headers.get('retry-after') ?? '', /^\d+$/);
      }
    }
    assert.equal(afterwards.status, 200);
  });
});
