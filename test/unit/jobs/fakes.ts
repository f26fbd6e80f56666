/**
 * In-memory stand-ins for the job ports, with the same conditional rules as
 * the DynamoDB job store (whose integration test checks those rules against
 * the emulator), so the consumers' logic can be tested without AWS.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import type { FileStore, StoredFile } from '../../../lib/files/file-store.js';
import { JobConflictError } from '../../../lib/jobs/errors.js';
import type { JobMessage, JobQueue, WebhookMessage } from '../../../lib/jobs/job-queue.js';
import { isFinished, isLive, type Job, type JobKey, type JobStore } from '../../../lib/jobs/job-store.js';
import type { DocumentPlan } from '../../../lib/render/render-plan.js';
import type { RenderResult } from '../../../lib/render/types.js';
import type { DocumentInput } from '../../../lib/schemas/merge-requests.js';

const id = (key: JobKey) => `${key.accountId}/${key.jobId}`;
const copy = <T>(value: T): T => structuredClone(value);

export type MemoryJobStore = JobStore & { jobs: Map<string, Job>; peek(key: JobKey): Job | undefined };

export function memoryJobStore(): MemoryJobStore {
  const jobs = new Map<string, Job>();
  const change = (key: JobKey, when: (job: Job) => boolean, apply: (job: Job) => void): Job | undefined => {
    const job = jobs.get(id(key));
    if (!job || !when(job)) return undefined;
    apply(job);
    return copy(job);
  };
  /** As the DynamoDB store: a change that takes the job rejects with the job as it stood when it does not apply. */
  const take = (key: JobKey, when: (job: Job) => boolean, apply: (job: Job) => void): Job => {
    const taken = change(key, when, apply);
    if (!taken) {
      const current = jobs.get(id(key));
      throw new JobConflictError(key.jobId, current && copy(current));
    }
    return taken;
  };
  const unheld = (job: Job, now: number) => job.status === 'PENDING' || (job.status === 'RUNNING' && !!job.lease && job.lease.until < now);
  return {
    jobs,
    peek: (key) => jobs.get(id(key)),
    async create(job) {
      jobs.set(id(job), copy(job));
    },
    async createIfAbsent(job) {
      if (jobs.has(id(job))) return false;
      jobs.set(id(job), copy(job));
      return true;
    },
    async get(key) {
      const job = jobs.get(id(key));
      return job ? copy(job) : undefined;
    },
    async loadInput(job) {
      return copy(job.input as DocumentInput);
    },
    async remove(key) {
      jobs.delete(id(key));
    },
    async claimRun(key, lease, now) {
      return take(key, (job) => unheld(job, now), (job) => {
        job.status = 'RUNNING';
        job.lease = lease;
        job.runs += 1;
      });
    },
    async renewRun(key, runId, until) {
      return !!change(key, (job) => job.status === 'RUNNING' && job.lease?.runId === runId, (job) => {
        (job.lease as NonNullable<Job['lease']>).until = until;
      });
    },
    async releaseRun(key, runId) {
      return !!change(key, (job) => job.status === 'RUNNING' && job.lease?.runId === runId, (job) => {
        job.status = 'PENDING';
        delete job.lease;
      });
    },
    async finishRun(key, runId, outcome, now) {
      return change(key, (job) => job.status === 'RUNNING' && job.lease?.runId === runId, (job) => {
        job.status = outcome.status;
        if (outcome.status === 'COMPLETED') {
          job.file = outcome.file;
          job.signedUrlStatus = outcome.signedUrlStatus;
          if (outcome.missingGlyphs) job.missingGlyphs = outcome.missingGlyphs;
        } else {
          job.error = outcome.error;
        }
        if (outcome.pageCount !== undefined) job.pageCount = outcome.pageCount;
        if (outcome.renderMs !== undefined) job.renderMs = outcome.renderMs;
        job.completedAt = new Date(now).toISOString();
        delete job.lease;
        delete job.input;
      });
    },
    async failUnfinished(key, error, now) {
      return take(key, (job) => unheld(job, now), (job) => {
        job.status = 'FAILED';
        job.error = error;
        job.completedAt = new Date(now).toISOString();
        delete job.lease;
        delete job.input;
      });
    },
    async claimWebhookAttempt(key, attempt, lease, now) {
      return take(
        key,
        (job) =>
          isFinished(job) &&
          (job.webhookStatus === 'PENDING' || job.webhookStatus === 'RETRYING') &&
          ((job.webhookAttempts === attempt - 1 && !isLive(job.webhookLease, now)) ||
            (job.webhookAttempts === attempt && !!job.webhookLease && job.webhookLease.until < now)),
        (job) => {
          job.webhookAttempts = attempt;
          job.webhookLease = lease;
        },
      );
    },
    async recordWebhookAttempt(key, attempt, runId, record) {
      return !!change(key, (job) => job.webhookAttempts === attempt && job.webhookLease?.runId === runId, (job) => {
        job.webhookStatus = record.status;
        job.webhookLog.push(record.entry);
        delete job.webhookLease;
      });
    },
  };
}

export type RecordingQueue = JobQueue & {
  jobs: JobMessage[];
  webhooks: Array<{ message: WebhookMessage; delaySeconds: number }>;
};

export function recordingQueue(): RecordingQueue {
  const queue: RecordingQueue = {
    jobs: [],
    webhooks: [],
    async sendJob(message) {
      queue.jobs.push(message);
    },
    async sendWebhook(message, delaySeconds) {
      queue.webhooks.push({ message, delaySeconds });
    },
  };
  return queue;
}

export type MemoryFileStore = FileStore & { files: Map<string, { body: Buffer; file: StoredFile }> };

export function memoryFileStore(): MemoryFileStore {
  const files = new Map<string, { body: Buffer; file: StoredFile }>();
  let next = 0;
  return {
    files,
    async put(accountId, body, contentType) {
      next += 1;
      const file = { key: `files/${accountId}/file-${next}`, contentType, size: body.length, createdAt: new Date().toISOString() };
      files.set(file.key, { body, file });
      return file;
    },
    async putStream(accountId, body, contentType) {
      const chunks: Uint8Array[] = [];
      for await (const chunk of body) chunks.push(chunk);
      return this.put(accountId, Buffer.concat(chunks), contentType);
    },
    async read(key) {
      return files.get(key)?.body;
    },
    async readStream(key) {
      const body = files.get(key)?.body;
      return body ? (async function* () { yield body; })() : undefined;
    },
    async downloadUrl(key, expiresInSeconds) {
      return `https://files.example/${key}?expires=${expiresInSeconds}`;
    },
    async deleteOlderThan(cutoff) {
      let deleted = 0;
      for (const [key, { file }] of files) {
        if (Date.parse(file.createdAt) < cutoff.getTime()) {
          files.delete(key);
          deleted += 1;
        }
      }
      return deleted;
    },
  };
}

/** A renderer that answers with fixed bytes, or fails with `failWith`; counts its renders. */
/** The fake renderer's PDF: no real file, but a page tree of three pages as a print writes one. */
export const FAKE_PDF = '%PDF-1.7 fake\n2 0 obj\n<</Type /Pages\n/Count 3\n/Kids [3 0 R 4 0 R 5 0 R]>>\nendobj\n';

export function fakeRenderer(options: { failWith?: () => Error } = {}) {
  const renderer = {
    renders: 0,
    /** The budget each render was given (`options.timeoutMs`), in order. */
    budgets: [] as Array<number | undefined>,
    failWith: options.failWith,
    async render(input: DocumentPlan, renderOptions?: { timeoutMs?: number }): Promise<RenderResult> {
      renderer.renders += 1;
      renderer.budgets.push(renderOptions?.timeoutMs);
      if (renderer.failWith) throw renderer.failWith();
      const pdf = input.output === 'PDF';
      return {
        body: Buffer.from(pdf ? FAKE_PDF : 'PNG fake'),
        contentType: pdf ? 'application/pdf' : 'image/png',
        output: input.output,
        timings: {},
      };
    },
  };
  return renderer;
}

/** A logger that prints nothing. */
export const silentLogger = new Logger({ logLevel: 'SILENT' });
