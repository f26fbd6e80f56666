import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import middy from '@middy/core';
import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type { Context } from 'aws-lambda';
import { RenderTimeoutError } from '../../lib/errors.js';
import { errorMapper } from '../../lib/http/error-mapper.js';
import { requestLog } from '../../lib/http/request-log.js';
import type { CallerContext, HttpEvent, HttpResult } from '../../lib/http/types.js';
import { recordJobRender, recordQueueAge, recordWebhookFailure, serviceMetrics } from '../../lib/observability/metrics.js';

/**
 * What CloudWatch receives from a function on Lambda: embedded-metric-format
 * lines and structured log lines on stdout. Captured here from a real middy
 * pipeline with the service's own middlewares.
 */

type Emf = {
  _aws: { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[] };
  [key: string]: unknown;
};

let lines: string[] = [];
let restoreWrite: (() => void) | undefined;
const savedEnv = { ...process.env };

function captureStdout(): void {
  lines = [];
  const original = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    lines.push(...String(chunk).split('\n').filter(Boolean));
    return (original as (...args: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stdout.write;
  restoreWrite = () => {
    process.stdout.write = original;
  };
}

const emfLines = () => lines.filter((line) => line.includes('"_aws"')).map((line) => JSON.parse(line) as Emf);

function lambdaContext(name: string): Context {
  return {
    functionName: name,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:123456789012:function:${name}`,
    memoryLimitInMB: '2048',
    awsRequestId: 'c6af9ac6-7b61-11e6-9a41-93e812345678',
    logGroupName: `/aws/lambda/${name}`,
    logStreamName: 'stream',
    callbackWaitsForEmptyEventLoop: false,
    getRemainingTimeInMillis: () => 20_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

function event(): HttpEvent {
  return {
    version: '2.0',
    routeKey: 'POST /v1/pdf',
    rawPath: '/v1/pdf',
    rawQueryString: '',
    headers: {},
    isBase64Encoded: false,
    requestContext: { requestId: 'api-request-1', http: { method: 'POST', path: '/v1/pdf' } },
  } as unknown as HttpEvent;
}

/** The observability and error-mapping part of the HTTP stack (lib/http/http-endpoint.ts) around a stand-in render. */
function endpoint(name: string, render: (context: CallerContext) => Promise<HttpResult>) {
  const logger = new Logger({ serviceName: 'docrender' });
  return middy<HttpEvent, HttpResult, Error, CallerContext>()
    .use(injectLambdaContext(logger))
    .use(logMetrics(serviceMetrics()))
    .use(requestLog({ logger, endpoint: name }))
    .use(errorMapper({ logger }))
    .handler(async (_event, context) => render(context));
}

describe('observability on Lambda', () => {
  beforeEach(() => {
    process.env.AWS_LAMBDA_FUNCTION_NAME = 'docrender-prod-pdf';
    process.env.POWERTOOLS_METRICS_NAMESPACE = 'DocRender';
    delete process.env.POWERTOOLS_METRICS_DISABLED;
    captureStdout();
  });

  afterEach(() => {
    restoreWrite?.();
    for (const name of Object.keys(process.env)) if (!(name in savedEnv)) delete process.env[name];
    Object.assign(process.env, savedEnv);
  });

  it('counts a raw render by kind, mode and outcome, with its duration', async () => {
    // Prepare
    const handler = endpoint('render-pdf', async (context) => {
      context.quota = 'spent';
      return { statusCode: 200, body: 'pdf' };
    });
    // Act
    await handler(event(), lambdaContext('docrender-prod-pdf'));
    // Assess
    const [emf] = emfLines();
    assert.ok(emf, lines.join('\n'));
    const directive = emf._aws.CloudWatchMetrics[0];
    assert.equal(directive?.Namespace, 'DocRender');
    assert.deepEqual(directive?.Dimensions, [['service', 'kind', 'mode', 'outcome']]);
    assert.deepEqual(directive?.Metrics.map((m) => `${m.Name}:${m.Unit}`), ['Renders:Count', 'RenderDuration:Milliseconds']);
    assert.deepEqual([emf.kind, emf.mode, emf.outcome, emf.Renders], ['pdf', 'raw', 'success', 1]);
    assert.equal(typeof emf.RenderDuration, 'number');
  });

  it('counts a render that ran out of time as a timeout', async () => {
    // Prepare
    const handler = endpoint('render-template-sync', async (context) => {
      context.quota = 'refunded';
      throw new RenderTimeoutError(25_000);
    });
    // Act
    const response = await handler(event(), lambdaContext('docrender-prod-template-render-sync'));
    // Assess
    assert.equal(response.statusCode, 504);
    const [emf] = emfLines();
    assert.deepEqual([emf?.kind, emf?.mode, emf?.outcome], ['template', 'sync', 'timeout']);
  });

  it('counts merges and processed PDFs under kinds of their own, raw and sync', async () => {
    // Prepare
    const done = async (context: CallerContext): Promise<HttpResult> => {
      context.quota = 'spent';
      return { statusCode: 200, body: 'pdf' };
    };
    // Act
    await endpoint('render-merge', done)(event(), lambdaContext('docrender-prod-pdf-merge'));
    await endpoint('render-process-sync', done)(event(), lambdaContext('docrender-prod-pdf-process-sync'));
    // Assess
    assert.deepEqual(
      emfLines().map((emf) => [emf.kind, emf.mode, emf.outcome]),
      [
        ['merge', 'raw', 'success'],
        ['process', 'sync', 'success'],
      ],
    );
  });

  it('counts nothing for a request refused before it rendered', async () => {
    // Prepare: no quota spent, as for a 401 or a 400
    const handler = endpoint('render-pdf', async () => ({ statusCode: 401, body: '{"message":"no"}' }));
    // Act
    await handler(event(), lambdaContext('docrender-prod-pdf'));
    // Assess
    assert.deepEqual(emfLines(), []);
  });

  it('puts the Lambda request id on the request’s log line', async () => {
    // Prepare
    const handler = endpoint('render-pdf', async () => ({ statusCode: 200, body: 'pdf' }));
    // Act
    await handler(event(), lambdaContext('docrender-prod-pdf'));
    // Assess
    const log = lines.map((line) => JSON.parse(line) as Record<string, unknown>).find((line) => line.message === 'request');
    assert.equal(log?.function_request_id, 'c6af9ac6-7b61-11e6-9a41-93e812345678');
    assert.equal(log?.requestId, 'api-request-1');
  });

  it('records queue age and webhook failures', () => {
    // Act
    recordQueueAge('jobs-consume', 1234.4);
    recordWebhookFailure(true);
    // Assess
    const [age, failure] = emfLines();
    assert.deepEqual([age?.queue, age?.QueueAge], ['jobs-consume', 1234]);
    assert.deepEqual([failure?.final, failure?.WebhookFailures], ['yes', 1]);
  });

  it('publishes a queued job\'s render at once, with its own dimensions', () => {
    // Act: two records of one batch, side by side
    recordJobRender({ kind: 'pdf', mode: 'async', outcome: 'success', durationMs: 120.4 });
    recordJobRender({ kind: 'screenshot', mode: 'async', outcome: 'page_error', durationMs: 80 });
    // Assess
    const seen = emfLines().map((emf) => [emf.kind, emf.outcome, emf.Renders ?? emf.RenderDuration]);
    assert.deepEqual(seen, [
      ['pdf', 'success', 1],
      ['pdf', 'success', 120],
      ['screenshot', 'page_error', 1],
      ['screenshot', 'page_error', 80],
    ]);
  });
});
