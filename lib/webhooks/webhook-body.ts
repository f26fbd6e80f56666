import type { SignedUrlStatus } from '../delivery/caller-upload.js';
import type { PageFileUrl } from '../files/companion-files.js';
import type { MissingGlyphReport } from '../glyphs/glyph-report.js';
import { signedUrlStatusOf, type BatchSummary, type Job, type JobError } from '../jobs/job-store.js';

/** How the file travels in the webhook: a download URL (receiveType URL) or its bytes (base64); null when the job failed. */
export type WebhookFile = { fileUrl: string | null } | { fileBase64: string | null };

/** The webhook's JSON body (decisions.md). */
export type WebhookBody = {
  id: string;
  status: 'COMPLETED' | 'FAILED';
  output: Job['output'];
  contentType: string | null;
  fileSize: number | null;
  fileUrl?: string | null;
  fileBase64?: string | null;
  /** Several page images (/v1/pdf/process): each page's image, in page order, beside the ZIP in `fileUrl`. */
  fileUrls?: PageFileUrl[];
  /** `pdf.preview`: the first page's image. */
  previewUrl?: string | null;
  signedUrlStatus: SignedUrlStatus;
  /** Characters the file draws with no glyph (issue 46): present only when there are any. */
  missingGlyphs?: MissingGlyphReport;
  metadata: Record<string, string>;
  error?: JobError;
  createdAt: string;
  completedAt: string | null;
  /** What the job cost (issue 47), each where known: the PDF's pages, and the milliseconds from taking the job to its file (render and finishing). */
  pageCount?: number;
  renderMs?: number;
};

/**
 * The body of a finished job's webhook. Every field is present for a stable
 * shape: the file's fields are null when the job failed, and `error` appears
 * only then; `missingGlyphs`, as in a synchronous answer, only when the file
 * draws characters no font has; `pageCount` and `renderMs` (issue 47) where
 * known, last, after every field decisions.md lists.
 */
export function webhookBody(job: Job, file: WebhookFile, beside: Pick<WebhookBody, 'fileUrls' | 'previewUrl'> = {}): WebhookBody {
  const stored = job.status === 'COMPLETED' ? job.file : undefined;
  return {
    id: job.jobId,
    status: job.status === 'COMPLETED' ? 'COMPLETED' : 'FAILED',
    output: job.output,
    contentType: stored?.contentType ?? null,
    fileSize: stored?.size ?? null,
    ...file,
    ...beside,
    signedUrlStatus: signedUrlStatusOf(job),
    ...(stored && job.missingGlyphs ? { missingGlyphs: job.missingGlyphs } : {}),
    metadata: job.webhook?.metadata ?? {},
    ...(job.error ? { error: job.error } : {}),
    createdAt: job.createdAt,
    completedAt: job.completedAt ?? null,
    // Additions after every field decisions.md lists, in its order (issue 47).
    ...(job.pageCount !== undefined ? { pageCount: job.pageCount } : {}),
    ...(job.renderMs !== undefined ? { renderMs: job.renderMs } : {}),
  };
}

/** A batch's one webhook (POST /v1/batches): how it ended, its counts and where its manifest is. */
export type BatchWebhookBody = {
  id: string;
  type: 'batch';
  status: BatchSummary['status'];
  total: number;
  done: number;
  failed: number;
  /** The results manifest (JSON: one entry per item), valid for the rest of its file's lifetime. */
  manifestUrl: string | null;
  /** `output.zip`'s archive and `output.merge`'s PDF, when asked (null when not made). */
  zipUrl?: string | null;
  mergedUrl?: string | null;
  /** With `storage`: how the PUT of the batch's one file to the caller's URL went. */
  signedUrlStatus?: SignedUrlStatus;
  metadata: Record<string, string>;
  createdAt: string;
  completedAt: string | null;
};

/** The body of a closed batch's webhook, from its record. */
export function batchWebhookBody(
  job: Job,
  summary: BatchSummary,
  urls: { manifestUrl: string | undefined; zipUrl?: string | undefined; mergedUrl?: string | undefined },
): BatchWebhookBody {
  return {
    id: job.jobId,
    type: 'batch',
    status: summary.status,
    total: summary.total,
    done: summary.done,
    failed: summary.failed,
    manifestUrl: urls.manifestUrl ?? null,
    ...('zipUrl' in urls ? { zipUrl: urls.zipUrl ?? null } : {}),
    ...('mergedUrl' in urls ? { mergedUrl: urls.mergedUrl ?? null } : {}),
    ...(summary.signedUrlStatus && summary.signedUrlStatus !== 'NOT_PROVIDED' ? { signedUrlStatus: summary.signedUrlStatus } : {}),
    metadata: job.webhook?.metadata ?? {},
    createdAt: job.createdAt,
    completedAt: job.completedAt ?? null,
  };
}
