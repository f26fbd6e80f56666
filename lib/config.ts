import * as v from 'valibot';
import { allowListProblems } from './net/allow-list.js';
import { readSigningConfig, type SigningConfig } from './signing/signing-config.js';

const intFromEnv = (fallback: number, min = 0) =>
  v.pipe(
    v.optional(v.string(), String(fallback)),
    // serverless.yml declares these as `${env:NAME, ''}`: empty means unset.
    v.transform((text) => (text === '' ? fallback : Number(text))),
    v.number('must be a number'),
    v.integer('must be an integer'),
    v.minValue(min, `must be at least ${min}`),
  );

/** Where a rendering function does its isolation work (`ISOLATION_PHASE`). */
export const ISOLATION_PHASES = ['post-response', 'inline'] as const;
export type IsolationPhase = (typeof ISOLATION_PHASES)[number];

const splitList = (list: string): string[] => list.split(',').map((s) => s.trim()).filter(Boolean);

const EnvSchema = v.object({
  AWS_REGION: v.optional(v.string(), 'us-east-1'),
  TOKENS_TABLE: v.optional(v.string(), 'docrender-dev-tokens'),
  TEMPLATES_TABLE: v.optional(v.string(), 'docrender-dev-templates'),
  FONTS_TABLE: v.optional(v.string(), 'docrender-dev-fonts'),
  JOBS_TABLE: v.optional(v.string(), 'docrender-dev-jobs'),
  /** Monthly quota and rate-limit counters. */
  USAGE_TABLE: v.optional(v.string(), 'docrender-dev-usage'),
  FILES_BUCKET: v.optional(v.string(), 'docrender-dev-files'),
  JOBS_QUEUE_URL: v.optional(v.string(), ''),
  WEBHOOKS_QUEUE_URL: v.optional(v.string(), ''),
  /** A batch's items, apart from single async jobs (POST /v1/batches). */
  BATCH_ITEMS_QUEUE_URL: v.optional(v.string(), ''),
  /** Where a finished batch's archive and merged PDF are queued to be made (batch-outputs-build). */
  BATCH_OUTPUTS_QUEUE_URL: v.optional(v.string(), ''),
  /** Seconds between a batch's watchdog checks, which recount and close a batch whose finisher died (SQS delays stop at 900). */
  BATCH_CHECK_SECONDS: v.pipe(intFromEnv(600, 1), v.maxValue(900, 'must be at most 900 seconds (the longest SQS delay)')),
  BATCH_FANOUT_CHUNK_ITEMS: v.pipe(intFromEnv(1000, 1), v.maxValue(5000, 'must be at most 5000 items (one fan-out step records and queues them within its invocation)')),
  /** How long temporary files live: download URLs expire then and the sweeper deletes them. */
  FILE_LIFETIME_SECONDS: v.pipe(intFromEnv(3600, 1), v.maxValue(86_400, 'must be at most 86400 (the bucket deletes files after a day)')),
  /** Seconds to wait before each webhook retry (SQS delays stop at 900); one attempt more than delays. */
  WEBHOOK_RETRY_DELAYS: v.pipe(
    v.optional(v.string(), '30,120,300,900,900'),
    v.transform((list) => list.split(',').map((item) => item.trim()).filter(Boolean).map(Number)),
    v.array(
      v.pipe(
        v.number('must be numbers of seconds, comma-separated'),
        v.integer('must be whole seconds'),
        v.minValue(0, 'must be 0 seconds or more'),
        v.maxValue(900, 'must be at most 900 seconds (the longest SQS delay)'),
      ),
    ),
  ),
  /** Largest accepted request body in bytes (413 above). */
  MAX_BODY_BYTES: intFromEnv(5 * 1024 * 1024, 1),
  /** Time budget of one raw or sync render, kept inside API Gateway's 30 s. */
  RENDER_TIMEOUT_MS: intFromEnv(25_000, 1000),
  /** `multi-process` (default) or `single-process` (what @sparticuz/chromium ships for Lambda). */
  CHROMIUM_MODE: v.optional(v.picklist(['multi-process', 'single-process']), 'multi-process'),
  /** Use this Chromium binary instead of the one unpacked from @sparticuz/chromium. */
  CHROMIUM_PATH: v.optional(v.string(), ''),
  /** The Chromium layer's pack (chromium.zst and archives); Lambda mounts the layer at /opt. */
  CHROMIUM_PACK_DIR: v.optional(v.string(), '/opt/chromium'),
  /** Where isolation runs: after the answer (Lambda extension) or alongside the render (the design before issue 24). */
  ISOLATION_PHASE: v.pipe(
    v.optional(v.string(), ''),
    // Empty (serverless.yml's `${env:ISOLATION_PHASE, ''}` when unset) means the default.
    v.transform((text) => text || 'post-response'),
    v.picklist(ISOLATION_PHASES, `must be ${ISOLATION_PHASES.join(' or ')}`),
  ),
  /** The deployer's signers by name, JSON (lib/signing/signing-config.ts); empty: no signing. */
  SIGNERS: v.optional(v.string(), ''),
  /** The RFC 3161 timestamp authority of PAdES B-T, B-LT and B-LTA; empty: no timestamps. */
  TIMESTAMP_URL: v.optional(v.string(), ''),
  /** Set by Lambda (and the local runtime): `host:port` of the Runtime and Extensions APIs. */
  AWS_LAMBDA_RUNTIME_API: v.optional(v.string(), ''),
  /** Comma-separated host names, IPs or CIDR ranges that may be reached although private. */
  ALLOW_PRIVATE_HOSTS: v.pipe(
    v.optional(v.string(), ''),
    v.check(
      (list) => allowListProblems(splitList(list)).length === 0,
      (issue) => allowListProblems(splitList(String(issue.input))).join('; '),
    ),
  ),
});

export type Config = {
  region: string;
  tables: { tokens: string; templates: string; fonts: string; jobs: string; usage: string };
  filesBucket: string;
  jobsQueueUrl: string;
  webhooksQueueUrl: string;
  batchItemsQueueUrl: string;
  batchOutputsQueueUrl: string;
  batchCheckSeconds: number;
  /** Items one fan-out step of a batch records and queues. */
  batchFanOutChunkItems: number;
  fileLifetimeSeconds: number;
  webhookRetryDelaysSeconds: number[];
  maxBodyBytes: number;
  renderTimeoutMs: number;
  chromiumMode: 'multi-process' | 'single-process';
  chromiumPath: string | undefined;
  chromiumPackDir: string;
  allowPrivateHosts: string[];
  /**
   * `post-response`: the used session closes and the next opens after the answer, in a Lambda
   * extension's post-response phase (billed, but not waited for); `inline`: no extension, the next
   * session opens alongside the render and the used one closes after the answer (the design before
   * issue 24, kept for comparing what each is billed). Isolation is the same either way.
   */
  isolationPhase: IsolationPhase;
  /** Where the Extensions API is (unset when a handler is called in-process, as the cold-start bench does). */
  lambdaRuntimeApi: string | undefined;
  /** The signers a render may name in `pdf.signature`, and the timestamp authority. */
  signing: SigningConfig;
};

/**
 * Reads and validates the service configuration from the environment.
 * Throws at cold start with every problem named, rather than failing later.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = v.safeParse(EnvSchema, env);
  if (!parsed.success) {
    const problems = parsed.issues.map((issue) => `${v.getDotPath(issue) ?? '?'} ${issue.message}`);
    throw new Error(`Invalid configuration: ${problems.join('; ')}`);
  }
  const e = parsed.output;
  return {
    region: e.AWS_REGION,
    tables: { tokens: e.TOKENS_TABLE, templates: e.TEMPLATES_TABLE, fonts: e.FONTS_TABLE, jobs: e.JOBS_TABLE, usage: e.USAGE_TABLE },
    filesBucket: e.FILES_BUCKET,
    jobsQueueUrl: e.JOBS_QUEUE_URL,
    webhooksQueueUrl: e.WEBHOOKS_QUEUE_URL,
    batchItemsQueueUrl: e.BATCH_ITEMS_QUEUE_URL,
    batchOutputsQueueUrl: e.BATCH_OUTPUTS_QUEUE_URL,
    batchCheckSeconds: e.BATCH_CHECK_SECONDS,
    batchFanOutChunkItems: e.BATCH_FANOUT_CHUNK_ITEMS,
    fileLifetimeSeconds: e.FILE_LIFETIME_SECONDS,
    webhookRetryDelaysSeconds: e.WEBHOOK_RETRY_DELAYS,
    maxBodyBytes: e.MAX_BODY_BYTES,
    renderTimeoutMs: e.RENDER_TIMEOUT_MS,
    chromiumMode: e.CHROMIUM_MODE,
    chromiumPath: e.CHROMIUM_PATH || undefined,
    chromiumPackDir: e.CHROMIUM_PACK_DIR,
    allowPrivateHosts: splitList(e.ALLOW_PRIVATE_HOSTS),
    isolationPhase: e.ISOLATION_PHASE,
    lambdaRuntimeApi: e.AWS_LAMBDA_RUNTIME_API || undefined,
    signing: readSigningConfig(e.SIGNERS, e.TIMESTAMP_URL),
  };
}
