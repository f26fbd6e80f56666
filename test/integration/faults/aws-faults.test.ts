import { after, afterEach, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Logger } from '@aws-lambda-powertools/logger';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { Context } from 'aws-lambda';
import { renderEndpoint } from '../../../lib/api/render-endpoints.js';
import type { AppDeps } from '../../../lib/bootstrap/app-deps.js';
import { createAwsClients, type AwsClients } from '../../../lib/aws/clients.js';
import { createDynamoJobStore } from '../../../lib/aws/dynamo-job-store.js';
import { createDynamoFontStore } from '../../../lib/aws/dynamo-font-store.js';
import { createDynamoTemplateStore } from '../../../lib/aws/dynamo-template-store.js';
import { createDynamoTokenStore } from '../../../lib/aws/dynamo-token-store.js';
import { createDynamoUsageStore } from '../../../lib/aws/dynamo-usage-store.js';
import { StorageUnavailableError } from '../../../lib/aws/errors.js';
import { createDynamoBatchStore } from '../../../lib/aws/dynamo-batch-store.js';
import { createS3BatchPlanStore } from '../../../lib/aws/s3-batch-plan-store.js';
import { createSqsBatchQueue } from '../../../lib/aws/sqs-batch-queue.js';
import { createS3FileStore } from '../../../lib/aws/s3-file-store.js';
import { createSqsJobQueue } from '../../../lib/aws/sqs-job-queue.js';
import type { HttpEvent, HttpResult } from '../../../lib/http/types.js';
import { readQuota } from '../../../lib/quota/quota.js';
import type { RenderDeps } from '../../../lib/bootstrap/rendering-handler.js';
import { createToken, hashToken } from '../../../lib/tokens/tokens.js';
import { chromiumlessRenderer } from '../../helpers/chromiumless-renderer.js';
import { withLocalAws, type LocalAwsForTests } from '../../helpers/emulators.js';
import { failAlways, failFirst, FAULTS, type FaultProxy, startFaultProxy } from './aws-fault-proxy.js';

/**
 * AWS throttling and failures injected between the SDK clients and the
 * embedded emulators (DynamoDB, S3, SQS), with the real stores and the real
 * HTTP stack of the async and sync endpoints around them.
 */

const SERVICES = ['DYNAMODB', 'S3', 'SQS'] as const;
type Service = (typeof SERVICES)[number];
const html = Buffer.from('<p>x</p>').toString('base64');

let counter = 0;
function event(token: string, body: unknown): HttpEvent {
  const requestId = `faults-${++counter}-${Date.now()}`;
  return {
    version: '2.0', routeKey: 'POST /v1/pdf', rawPath: '/v1/pdf', rawQueryString: '',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body), isBase64Encoded: false,
    requestContext: {
      accountId: '1', apiId: 'a', domainName: 'd', domainPrefix: 'd', requestId, routeKey: 'POST /v1/pdf',
      stage: '$default', time: '', timeEpoch: 0,
      http: { method: 'POST', path: '/v1/pdf', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'test' },
    },
  } as unknown as HttpEvent;
}
const context = () => ({ awsRequestId: `lambda-${counter}`, getRemainingTimeInMillis: () => 30_000 }) as unknown as Context;
const bodyOf = (result: HttpResult) => JSON.parse(String(result.body)) as Record<string, unknown>;

describe('AWS throttling and failures in front of the emulators', { timeout: 120_000 }, () => {
  let aws: LocalAwsForTests;
  let clients: AwsClients;
  const proxies = {} as Record<Service, FaultProxy>;
  const original: Partial<Record<string, string>> = {};
  let deps: RenderDeps;
  let asyncPdf: ReturnType<typeof renderEndpoint<'async'>>;
  let syncPdf: ReturnType<typeof renderEndpoint<'sync'>>;
  let token: string;

  before(async () => {
    aws = await withLocalAws();
    // The SDK reads AWS_ENDPOINT_URL_<SERVICE> as the service does: point it at a fault proxy per emulator.
    for (const service of SERVICES) {
      const variable = `AWS_ENDPOINT_URL_${service}`;
      original[variable] = process.env[variable];
      proxies[service] = await startFaultProxy(process.env[variable] as string);
      process.env[variable] = proxies[service].url;
    }
    clients = createAwsClients(aws.config);
    const { config } = aws;
    const base: AppDeps = {
      config,
      logger: new Logger({ serviceName: 'faults', logLevel: 'SILENT' }),
      tokens: createDynamoTokenStore(clients.dynamo, config.tables.tokens),
      templates: createDynamoTemplateStore({ dynamo: clients.dynamo, s3: clients.s3, tableName: config.tables.templates, bucket: config.filesBucket }),
      fonts: createDynamoFontStore({ dynamo: clients.dynamo, s3: clients.s3, tableName: config.tables.fonts, bucket: config.filesBucket }),
      usage: createDynamoUsageStore(clients.dynamo, { tokens: config.tables.tokens, usage: config.tables.usage }),
      files: createS3FileStore({ s3: clients.s3, bucket: config.filesBucket }),
      jobs: createDynamoJobStore({ dynamo: clients.dynamo, s3: clients.s3, tableName: config.tables.jobs, bucket: config.filesBucket }),
      queue: createSqsJobQueue({ sqs: clients.sqs, jobsQueueUrl: config.jobsQueueUrl, webhooksQueueUrl: config.webhooksQueueUrl }),
      batches: createDynamoBatchStore({ dynamo: clients.dynamo, tableName: config.tables.jobs }),
      batchQueue: createSqsBatchQueue({ sqs: clients.sqs, queueUrl: config.batchItemsQueueUrl, outputsQueueUrl: config.batchOutputsQueueUrl }),
      batchPlans: createS3BatchPlanStore({ s3: clients.s3, bucket: config.filesBucket }),
    };
    deps = { ...base, renderer: chromiumlessRenderer() };
    asyncPdf = renderEndpoint('pdf', 'async', deps);
    syncPdf = renderEndpoint('pdf', 'sync', deps);
    token = (await createToken(deps.tokens, { limit: 100, rate: 1000 })).token;
  });
  afterEach(() => {
    for (const service of SERVICES) proxies[service].setPlan(undefined);
  });
  after(async () => {
    clients.dynamo.destroy();
    clients.s3.destroy();
    clients.sqs.destroy();
    for (const service of SERVICES) {
      await proxies[service].close();
      process.env[`AWS_ENDPOINT_URL_${service}`] = original[`AWS_ENDPOINT_URL_${service}`];
    }
    await aws.stop();
  });

  const used = async () => (await readQuota(deps.usage, (await deps.tokens.findByHash(hashToken(token)))!)).used;
  const asyncBody = { page: { html }, webhook: { url: 'https://hooks.example.com/done' } };
  /** The account's job records, read straight from the emulator (not through a proxy). */
  const jobCount = async () => {
    const record = await deps.tokens.findByHash(hashToken(token));
    const { Items } = await aws.clients.dynamo.send(new ScanCommand({ TableName: aws.config.tables.jobs }));
    return (Items ?? []).filter((item) => item.accountId === record?.accountId).length;
  };

  it('absorbs two DynamoDB throttles in a row with the SDK\'s retries: the async request is accepted', async () => {
    // Prepare
    proxies.DYNAMODB.setPlan(failFirst(2, FAULTS.dynamoThrottled));

    // Act
    const result = await asyncPdf(event(token, asyncBody), context());

    // Assess
    assert.equal(result.statusCode, 201, String(result.body));
    assert.equal(proxies.DYNAMODB.failed(), 2);
  });

  it('absorbs two S3 SlowDown answers when storing the file of a sync render', async () => {
    // Prepare
    proxies.S3.setPlan(failFirst(2, FAULTS.s3SlowDown));
    const failedBefore = proxies.S3.failed();

    // Act
    const result = await syncPdf(event(token, { page: { html } }), context());

    // Assess
    assert.equal(result.statusCode, 200, String(result.body));
    assert.equal(bodyOf(result).status, 'COMPLETED');
    assert.equal(proxies.S3.failed() - failedBefore, 2);
  });

  it('absorbs an SQS outage of two calls and a dropped connection: the job is queued and recorded', async () => {
    // Prepare
    proxies.SQS.setPlan(failFirst(2, FAULTS.sqsUnavailable));
    const jobsBefore = await jobCount();

    // Act
    const first = await asyncPdf(event(token, asyncBody), context());
    proxies.SQS.setPlan(failFirst(1, 'reset'));
    const second = await asyncPdf(event(token, asyncBody), context());

    // Assess
    assert.equal(first.statusCode, 201, String(first.body));
    assert.equal(second.statusCode, 201, String(second.body));
    assert.equal(await jobCount(), jobsBefore + 2);
  });

  it('answers 503 JSON with Retry-After while DynamoDB keeps failing, then normally once it recovers', async () => {
    // Prepare
    proxies.DYNAMODB.setPlan(failAlways(FAULTS.dynamoInternal));

    // Act
    const during = await asyncPdf(event(token, asyncBody), context());
    proxies.DYNAMODB.setPlan(undefined);
    const afterwards = await asyncPdf(event(token, asyncBody), context());

    // Assess
    assert.equal(during.statusCode, 503);
    assert.equal(during.headers?.['retry-after'], '5');
    assert.deepEqual(Object.keys(bodyOf(during)), ['message']);
    assert.doesNotMatch(String(bodyOf(during).message), /DynamoDB|table|InternalFailure/i);
    assert.equal(afterwards.statusCode, 201);
  });

  it('answers 503 when S3 keeps answering SlowDown to a sync render, and gives the quota unit back', async () => {
    // Prepare
    const before = await used();
    proxies.S3.setPlan(failAlways(FAULTS.s3SlowDown));

    // Act
    const result = await syncPdf(event(token, { page: { html } }), context());
    proxies.S3.setPlan(undefined);

    // Assess
    assert.equal(result.statusCode, 503, String(result.body));
    assert.equal(result.headers?.['retry-after'], '5');
    assert.equal(await used(), before);
  });

  it('answers 503 when SQS keeps failing, leaves no job record behind and gives the quota unit back', async () => {
    // Prepare
    const before = await used();
    const jobsBefore = await jobCount();
    proxies.SQS.setPlan(failAlways(FAULTS.sqsUnavailable));

    // Act
    const result = await asyncPdf(event(token, asyncBody), context());
    proxies.SQS.setPlan(undefined);

    // Assess: not accepted, so nothing of it remains; a job that was accepted is one that was queued.
    assert.equal(result.statusCode, 503, String(result.body));
    assert.equal(result.headers?.['retry-after'], '5');
    assert.equal(await jobCount(), jobsBefore);
    assert.equal(await used(), before);
  });

  it('turns a persistent AWS failure into StorageUnavailableError where it arises, never an SDK exception', async () => {
    // Prepare
    proxies.S3.setPlan(failAlways(FAULTS.s3SlowDown));

    // Act
    const attempt = deps.files.put('acct-x', Buffer.from('x'), 'application/pdf');

    // Assess
    await assert.rejects(attempt, (error: unknown) => error instanceof StorageUnavailableError && /Storing a file/.test(error.message));
  });
});
