import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { BatchPlanStore } from '../batches/batch-plan-store.js';
import type { Config } from '../config.js';
import type { FileStore } from '../files/file-store.js';
import type { JobStore } from '../jobs/job-store.js';
import type { TemplateStore } from '../templates/template-store.js';
import type { FontStore } from '../fonts/user-fonts/font-store.js';
import { createDynamoFontStore } from './dynamo-font-store.js';
import { createDynamoJobStore } from './dynamo-job-store.js';
import { createDynamoTemplateStore } from './dynamo-template-store.js';
import { createS3BatchPlanStore } from './s3-batch-plan-store.js';
import { createS3Client } from './s3-client.js';
import { createS3FileStore } from './s3-file-store.js';

/** The stores that keep something in S3: temporary files, templates' and jobs' oversized parts, batches' planned items, user fonts' files. */
export type S3Stores = { templates: TemplateStore; fonts: FontStore; files: FileStore; jobs: JobStore; batchPlans: BatchPlanStore };

/** Builds the S3 client and the stores that share it (`lib/bootstrap/app-deps.ts` loads this module on the first call that needs one). */
export function createS3Stores(dynamo: DynamoDBDocumentClient, config: Pick<Config, 'region' | 'tables' | 'filesBucket'>): S3Stores {
  const s3 = createS3Client(config);
  return {
    templates: createDynamoTemplateStore({ dynamo, s3, tableName: config.tables.templates, bucket: config.filesBucket }),
    fonts: createDynamoFontStore({ dynamo, s3, tableName: config.tables.fonts, bucket: config.filesBucket }),
    files: createS3FileStore({ s3, bucket: config.filesBucket }),
    jobs: createDynamoJobStore({ dynamo, s3, tableName: config.tables.jobs, bucket: config.filesBucket }),
    batchPlans: createS3BatchPlanStore({ s3, bucket: config.filesBucket }),
  };
}
