import { Logger } from '@aws-lambda-powertools/logger';
import { loadConfig, type Config } from './config.js';
import { createAwsClients, type AwsClients } from './aws/clients.js';
import { createDynamoTokenStore } from './aws/dynamo-token-store.js';
import { createDynamoTemplateStore } from './aws/dynamo-template-store.js';
import { createDynamoJobStore } from './aws/dynamo-job-store.js';
import { createS3FileStore } from './aws/s3-file-store.js';
import { createSqsJobQueue } from './aws/sqs-job-queue.js';
import type { FileStore } from './files/file-store.js';
import type { JobQueue } from './jobs/job-queue.js';
import type { JobStore } from './jobs/job-store.js';
import { createDynamoUsageStore } from './aws/dynamo-usage-store.js';
import { createEgressPolicy, useEgressPolicy } from './net/egress-policy.js';
import type { UsageStore } from './quota/usage-store.js';
import type { TemplateStore } from './templates/template-store.js';
import type { TokenStore } from './tokens/token-store.js';

/** Everything the handlers share within one container (one Lambda execution environment). */
export type AppDeps = {
  config: Config;
  logger: Logger;
  clients: AwsClients;
  tokens: TokenStore;
  templates: TemplateStore;
  /** Quota and rate-limit counters, shared by every instance. */
  usage: UsageStore;
  /** Temporary rendered files (sync, async, oversized raw). */
  files: FileStore;
  jobs: JobStore;
  queue: JobQueue;
};

let deps: AppDeps | undefined;

/**
 * The container's dependencies, built once on first use from the environment:
 * config (validated, so a bad setting fails the cold start), the egress
 * policy it names, AWS clients and stores. The browser lives in `render-app.ts` so that functions which do not
 * render never load Chromium. Tests build their own instead.
 */
export function appDeps(): AppDeps {
  if (deps) return deps;
  const config = loadConfig();
  useEgressPolicy(createEgressPolicy({ allowPrivateHosts: config.allowPrivateHosts }));
  const clients = createAwsClients(config);
  deps = {
    config,
    logger: new Logger({ serviceName: 'docrender' }),
    clients,
    tokens: createDynamoTokenStore(clients.dynamo, config.tables.tokens),
    templates: createDynamoTemplateStore({
      dynamo: clients.dynamo,
      s3: clients.s3,
      tableName: config.tables.templates,
      bucket: config.filesBucket,
    }),
    usage: createDynamoUsageStore(clients.dynamo, config.tables.usage),
    files: createS3FileStore({ s3: clients.s3, bucket: config.filesBucket }),
    jobs: createDynamoJobStore({
      dynamo: clients.dynamo,
      s3: clients.s3,
      tableName: config.tables.jobs,
      bucket: config.filesBucket,
    }),
    queue: createSqsJobQueue({
      sqs: clients.sqs,
      jobsQueueUrl: config.jobsQueueUrl,
      webhooksQueueUrl: config.webhooksQueueUrl,
    }),
  };
  return deps;
}
