import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { createHttpApi, type LocalHttpApi } from '../../../scripts/local-runtime/http-api.js';
import { existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ScheduledEvent } from 'aws-lambda';
import { createLambdaRuntime, type LambdaRuntime } from '../../../scripts/local-runtime/lambda-runtime.js';
import { LOCAL_ACCOUNT_ID, startLocalAws, type LocalAws } from '../../../scripts/local-runtime/local-aws.js';
import { FIXTURE_SERVERLESS_FILE } from '../../helpers/emulators.js';
import { waitFor } from '../../helpers/wait-for.js';
import { recorded } from './fixtures/handlers/jobs.js';
import { fixedTempDir, tempDir } from '../../helpers/temp-dir.js';

/** A fixed directory: FIXTURE_OUT is part of the resolved configuration, and a fixed value keeps osls' answer cached. */
const OUT = path.join(tmpdir(), 'docrender-fixture-http-api');

type Echo = {
  event: APIGatewayProxyEventV2;
  context: { functionName: string; memoryLimitInMB: string; awsRequestId: string; remainingTimeInMillis: number };
};

describe('createHttpApi', () => {
  let api: LocalHttpApi;
  let baseUrl: string;
  const errors: string[] = [];

  let local: LocalAws;
  let runtime: LambdaRuntime;

  before(async () => {
    fixedTempDir(path.basename(OUT));
    local = await startLocalAws({ file: FIXTURE_SERVERLESS_FILE, env: { ...process.env, FIXTURE_OUT: OUT } });
    runtime = createLambdaRuntime({
      serviceDir: local.service.serviceDir,
      region: 'us-east-1',
      accountId: LOCAL_ACCOUNT_ID,
      environmentOf: local.environmentOf,
      logError: (line) => errors.push(line),
    });
    api = createHttpApi({ functions: local.service.functions, runtime, region: 'us-east-1', accountId: LOCAL_ACCOUNT_ID });
    baseUrl = await api.listen(0);
  });
  after(async () => {
    await api.close();
    await runtime.stop();
    await local.stop();
  });

  const echo = async (path: string, init?: RequestInit) => {
    const response = await fetch(baseUrl + path, init);
    assert.equal(response.status, 200);
    return (await response.json()) as Echo;
  };

  it('routes to the function with decoded path parameters and comma-joined query parameters', async () => {
    // Act
    const { event } = await echo('/items/abc%20def?tag=a&tag=b&q=x%2By');

    // Assess
    assert.equal(event.version, '2.0');
    assert.equal(event.routeKey, 'GET /items/{id}');
    assert.equal(event.rawPath, '/items/abc%20def');
    assert.equal(event.rawQueryString, 'tag=a&tag=b&q=x%2By');
    assert.deepEqual(event.pathParameters, { id: 'abc def' });
    assert.deepEqual(event.queryStringParameters, { tag: 'a,b', q: 'x+y' });
    assert.equal(event.body, undefined);
    assert.equal(event.isBase64Encoded, false);
    assert.equal(event.requestContext.stage, '$default');
    assert.equal(event.requestContext.routeKey, 'GET /items/{id}');
    assert.deepEqual(
      (({ method, path, sourceIp }) => ({ method, path, sourceIp }))(event.requestContext.http),
      { method: 'GET', path: '/items/abc%20def', sourceIp: '127.0.0.1' },
    );
    assert.equal(event.requestContext.accountId, LOCAL_ACCOUNT_ID);
  });

  it('prefers a literal route over a path parameter', async () => {
    // Act
    const { event } = await echo('/items/special');

    // Assess
    assert.equal(event.routeKey, 'GET /items/special');
    assert.equal(event.pathParameters, undefined);
  });

  it('matches any method and several segments with {proxy+}', async () => {
    // Act
    const { event } = await echo('/echo/a/b/c', { method: 'DELETE' });

    // Assess
    assert.equal(event.routeKey, 'ANY /echo/{proxy+}');
    assert.deepEqual(event.pathParameters, { proxy: 'a/b/c' });
    assert.equal(event.requestContext.http.method, 'DELETE');
  });

  it('lower-cases headers, joins repeated ones with commas and moves cookies to their own array', async () => {
    // Prepare
    const url = new URL('/items/1', baseUrl);

    // Act
    const body = await new Promise<string>((resolve, reject) => {
      const request = http.request(url, {
        headers: { 'X-Repeated': ['one', 'two'], Cookie: 'session=abc; theme=dark', 'X-Mixed-Case': 'yes' },
      });
      request.on('response', (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => resolve(text));
      });
      request.on('error', reject);
      request.end();
    });
    const { event } = JSON.parse(body) as Echo;

    // Assess
    assert.equal(event.headers['x-repeated'], 'one,two');
    assert.equal(event.headers['x-mixed-case'], 'yes');
    assert.deepEqual(event.cookies, ['session=abc', 'theme=dark']);
    assert.equal(event.headers.cookie, undefined);
  });

  it('passes a JSON body as text', async () => {
    // Act
    const { event } = await echo('/items/42/sync', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"page":{"url":"https://example.com"}}',
    });

    // Assess
    assert.equal(event.routeKey, 'POST /items/{id}/sync');
    assert.equal(event.isBase64Encoded, false);
    assert.equal(event.body, '{"page":{"url":"https://example.com"}}');
  });

  it('base64-encodes a binary request body and decodes a base64 response body', async () => {
    // Prepare
    const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));

    // Act
    const response = await fetch(`${baseUrl}/binary`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: bytes,
    });

    // Assess
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('x-request-was-base64'), 'true');
    assert.deepEqual(Buffer.from(await response.arrayBuffer()), bytes);
  });

  it('gives the handler a Lambda context with its name, memory and remaining time', async () => {
    // Act
    const { context } = await echo('/items/1');

    // Assess
    assert.equal(context.functionName, 'fixture-test-echo');
    assert.equal(context.memoryLimitInMB, '512');
    assert.match(context.awsRequestId, /^[0-9a-f-]{36}$/);
    assert.ok(context.remainingTimeInMillis > 0 && context.remainingTimeInMillis <= 5000);
  });

  for (const [method, path] of [
    ['GET', '/nowhere'],
    ['POST', '/items/1'],
    ['GET', '/items/1/sync'],
    ['GET', '/echo'],
  ] as const) {
    it(`answers ${method} ${path} with API Gateway's 404`, async () => {
      // Act
      const response = await fetch(baseUrl + path, { method });

      // Assess
      assert.equal(response.status, 404);
      assert.equal(response.headers.get('content-type'), 'application/json');
      assert.equal(await response.text(), '{"message":"Not Found"}');
    });
  }

  for (const [label, size] of [
    ['over API Gateway\'s 10 MB', 10 * 1024 * 1024 + 1],
    ['over Lambda\'s 6 MB event limit', 7 * 1024 * 1024],
  ] as const) {
    it(`answers 413 for a body ${label}`, async () => {
      // Act
      const response = await fetch(`${baseUrl}/items/1/sync`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: Buffer.alloc(size, 0x20),
      });

      // Assess
      assert.equal(response.status, 413);
      assert.equal(await response.text(), '{"message":"Request Entity Too Large"}');
    });
  }

  for (const [label, path] of [
    ['a handler that throws', '/boom'],
    ['a response over Lambda\'s 6 MB', '/oversized'],
    ['a handler that outlives its timeout', '/slow'],
  ] as const) {
    it(`answers 500 Internal Server Error for ${label}`, async () => {
      // Act
      const response = await fetch(baseUrl + path);

      // Assess
      assert.equal(response.status, 500);
      assert.equal(await response.text(), '{"message":"Internal Server Error"}');
    });
  }

  it('sends an object without statusCode as a 200 JSON body', async () => {
    // Act
    const response = await fetch(`${baseUrl}/plain`);

    // Assess
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/json');
    assert.deepEqual(await response.json(), { hello: 'world' });
  });

  it('turns cookies into Set-Cookie headers next to the other headers', async () => {
    // Act
    const response = await fetch(`${baseUrl}/cookies`);

    // Assess
    assert.equal(response.status, 204);
    assert.equal(response.headers.get('x-single'), 'one');
    assert.deepEqual(response.headers.getSetCookie(), ['a=1; Path=/', 'b=2; HttpOnly']);
  });

  it('invokes a scheduled function by hand with a scheduled event', async () => {
    // Prepare
    const scheduled = () => recorded<ScheduledEvent>(OUT, 'scheduled');
    const before = scheduled().length;

    // Act
    const response = await fetch(`${baseUrl}/__local/invoke/cleanup`, { method: 'POST' });

    // Assess
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { deleted: 0 });
    const event = scheduled()[before];
    assert.equal(event?.source, 'aws.events');
    assert.equal(event?.['detail-type'], 'Scheduled Event');
  });

  it('answers 404 when invoking a function that does not exist', async () => {
    // Act
    const response = await fetch(`${baseUrl}/__local/invoke/nope`, { method: 'POST' });

    // Assess
    assert.equal(response.status, 404);
  });
  it('answers the client before the post-response work of an extension ends', async () => {
    // Prepare: the work after the answer waits for a file that only this test creates
    const dir = tempDir('docrender-http-post-response-');
    const go = path.join(dir, 'go');
    const marker = path.join(dir, 'done');

    // Act
    const response = await fetch(`${baseUrl}/afterwork`, { method: 'POST', body: JSON.stringify({ go, marker }) });
    const body = (await response.json()) as { registered: boolean };
    const doneAtAnswer = existsSync(marker);
    writeFileSync(go, '');

    // Assess
    assert.equal(response.status, 200);
    assert.equal(body.registered, true);
    assert.equal(doneAtAnswer, false, 'the client waited for the post-response work');
    await waitFor('the post-response work done', () => (existsSync(marker) ? true : undefined), 10_000);
  });
});
