import { Logger } from '@aws-lambda-powertools/logger';
import { loadConfig, type Config } from '../config.js';
import { createDynamoClient } from '../aws/dynamo-client.js';
import { createDynamoTokenStore } from '../aws/dynamo-token-store.js';
import { createDynamoUsageStore } from '../aws/dynamo-usage-store.js';
import { loadOnFirstCall } from '../aws/load-on-first-call.js';
import type { S3Stores } from '../aws/s3-stores.js';
import { createDynamoBatchStore } from '../aws/dynamo-batch-store.js';
import type { BatchPlanStore } from '../batches/batch-plan-store.js';
import type { BatchQueue } from '../batches/batch-queue.js';
import type { BatchStore } from '../batches/batch-store.js';
import type { FileStore } from '../files/file-store.js';
import type { JobQueue } from '../jobs/job-queue.js';
import type { JobStore } from '../jobs/job-store.js';
import { createEgressPolicy, useEgressPolicy } from '../net/egress-policy.js';
import type { UsageStore } from '../quota/usage-store.js';
import type { TemplateStore } from '../templates/template-store.js';
import type { FontStore } from '../fonts/user-fonts/font-store.js';
import type { TokenStore } from '../tokens/token-store.js';

/** Everything the handlers share within one container (one Lambda execution environment). */
export type AppDeps = {
  config: Config;
  logger: Logger;
  tokens: TokenStore;
  templates: TemplateStore;
  /** The accounts' own fonts (issue 46): records in DynamoDB, files in S3. */
  fonts: FontStore;
  /** Quota and rate-limit counters, shared by every instance. */
  usage: UsageStore;
  /** Temporary rendered files (sync, async, oversized raw). */
  files: FileStore;
  jobs: JobStore;
  queue: JobQueue;
  /** Batches, kept beside their items in the jobs table. */
  batches: BatchStore;
  /** The batch items queue, apart from the jobs queue. */
  batchQueue: BatchQueue;
  /** A batch's planned items between its POST and its fan-out. */
  batchPlans: BatchPlanStore;
};

let deps: AppDeps | undefined;

/**
 * The container's dependencies, built once on first use from the environment:
 * config (validated, so a bad setting fails the cold start), the egress
 * policy it names, the logger and the stores. The browser lives in
 * `renderer-init.ts` so that functions which do not render never load Chromium.
 * Tests build their own instead.
 *
 * Every request checks its token and counts its use in DynamoDB, so that
 * client and those two stores are built now. The S3 and SQS clients, and the
 * stores that need them (templates, files, jobs, queue), are loaded by their
 * first call instead (`loadOnFirstCall`; esbuild makes each import a chunk
 * beside the handler): a raw render never needs them, and reading them cost
 * every cold start (INIT is billed, and on a renderer it competes with
 * Chromium's start for the CPU).
 */
export function appDeps(): AppDeps {
  if (deps) return deps;
  const config = loadConfig();
  useEgressPolicy(createEgressPolicy({ allowPrivateHosts: config.allowPrivateHosts }));
  const dynamo = createDynamoClient(config);
  let s3Stores: Promise<S3Stores> | undefined;
  const loadS3Stores = () => (s3Stores ??= import('../aws/s3-stores.js').then(({ createS3Stores }) => createS3Stores(dynamo, config)));
  deps = {
    config,
    logger: new Logger({ serviceName: 'docrender' }),
    tokens: createDynamoTokenStore(dynamo, config.tables.tokens),
    usage: createDynamoUsageStore(dynamo, { tokens: config.tables.tokens, usage: config.tables.usage }),
    templates: loadOnFirstCall(async () => (await loadS3Stores()).templates),
    fonts: loadOnFirstCall(async () => (await loadS3Stores()).fonts),
    files: loadOnFirstCall(async () => (await loadS3Stores()).files),
    jobs: loadOnFirstCall(async () => (await loadS3Stores()).jobs),
    queue: loadOnFirstCall(async () => (await import('../aws/sqs-queue.js')).createSqsQueue(config)),
    batches: createDynamoBatchStore({ dynamo, tableName: config.tables.jobs }),
    batchPlans: loadOnFirstCall(async () => (await loadS3Stores()).batchPlans),
    batchQueue: loadOnFirstCall(async () => (await import('../aws/sqs-batch-queue.js')).createSqsBatchQueueFromConfig(config)),
  };
  return deps;
}
