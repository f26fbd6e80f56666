import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { MetricUnit as MetricUnitValue } from '@aws-lambda-powertools/metrics/types';
import { httpError, ValidationError } from '../errors.js';

/**
 * Service metrics as CloudWatch embedded metric format (EMF): JSON lines on
 * stdout, which CloudWatch Logs turns into metrics in the
 * `POWERTOOLS_METRICS_NAMESPACE` namespace (DocRender). No API call, no
 * cloudwatch:PutMetricData permission. One Metrics instance per container:
 * the HTTP stack flushes it at the end of each invocation (Powertools'
 * `logMetrics`); queue consumers, whose batch records run in parallel with
 * different dimensions, publish each metric at once (`singleMetric`).
 * `POWERTOOLS_METRICS_DISABLED=true` turns them off (Powertools' own switch).
 *
 * Metrics:
 * - `Renders` (Count) and `RenderDuration` (Milliseconds), by `kind`
 *   (pdf, screenshot, template, merge, process), `mode` (raw, sync, async) and `outcome`;
 * - `QueueAge` (Milliseconds) by `queue`: how long a message waited before a consumer got it;
 * - `WebhookFailures` (Count) by `final` (no: it will be retried; yes: given up).
 */

export type RenderKind = 'pdf' | 'screenshot' | 'template' | 'merge' | 'process';
export type RenderMode = 'raw' | 'sync' | 'async';
/**
 * `success`; `page_error` (the page could not be loaded: the caller's page);
 * `rejected` (refused after the quota was spent, e.g. a storage URL);
 * `timeout` (the render budget ran out); `error` (the service failed).
 */
export type RenderOutcome = 'success' | 'page_error' | 'rejected' | 'timeout' | 'error';

export type RenderEvent = { kind: RenderKind; mode: RenderMode; outcome: RenderOutcome; durationMs: number };

let containerMetrics: Metrics | undefined;

/** The container's Metrics, created at the first use (the cold start) and kept for every invocation. */
export function serviceMetrics(): Metrics {
  containerMetrics ??= new Metrics({
    namespace: process.env.POWERTOOLS_METRICS_NAMESPACE || 'DocRender',
    serviceName: process.env.POWERTOOLS_SERVICE_NAME || 'docrender',
    logger: {
      ...console,
      // logMetrics flushes after every request, and most requests render nothing: that is no warning.
      warn: (...args: unknown[]) => (String(args[0]).startsWith('No application metrics to publish') ? undefined : console.warn(...args)),
    },
  });
  return containerMetrics;
}

type MetricValue = { name: string; unit: MetricUnitValue; value: number };

/** Publishes each value at once with its own dimensions (a batch's records run side by side). */
function publishNow(dimensions: Record<string, string>, values: MetricValue[]): void {
  for (const { name, unit, value } of values) {
    const single = serviceMetrics().singleMetric();
    single.addDimensions(dimensions);
    single.addMetric(name, unit, value);
  }
}

function renderValues(event: RenderEvent): MetricValue[] {
  return [
    { name: 'Renders', unit: MetricUnit.Count, value: 1 },
    { name: 'RenderDuration', unit: MetricUnit.Milliseconds, value: Math.max(0, Math.round(event.durationMs)) },
  ];
}

/**
 * Counts the render of an HTTP request and its duration (what the caller
 * waited), stored until `logMetrics` flushes them at the end of the invocation.
 */
export function recordRender(event: RenderEvent): void {
  const metrics = serviceMetrics();
  metrics.addDimensions({ kind: event.kind, mode: event.mode, outcome: event.outcome });
  for (const { name, unit, value } of renderValues(event)) metrics.addMetric(name, unit, value);
}

/** Counts the render of a queued job and its duration, published at once. */
export function recordJobRender(event: RenderEvent): void {
  publishNow({ kind: event.kind, mode: event.mode, outcome: event.outcome }, renderValues(event));
}

/** Records how long a queue message waited between being sent and reaching a consumer. */
export function recordQueueAge(queue: string, ageMs: number): void {
  if (!Number.isFinite(ageMs)) return;
  publishNow({ queue }, [{ name: 'QueueAge', unit: MetricUnit.Milliseconds, value: Math.max(0, Math.round(ageMs)) }]);
}

/** Counts a webhook attempt that did not deliver; `final` when no attempt follows. */
export function recordWebhookFailure(final: boolean): void {
  publishNow({ final: final ? 'yes' : 'no' }, [{ name: 'WebhookFailures', unit: MetricUnit.Count, value: 1 }]);
}

/**
 * The outcome of a render from what it ended with: nothing (success), a
 * thrown error, or a job's recorded error (`{code, message}`, e.g.
 * `render.navigation`, `render.timeout`).
 */
export function renderOutcomeOf(raised: unknown): RenderOutcome {
  if (raised === undefined || raised === null) return 'success';
  // A library's own error (lib/signing) counts by the status and code the edge answers it with.
  const error = httpError(raised);
  if (typeof error !== 'object' || error === null) return 'error';
  const code = 'code' in error ? String(error.code) : undefined;
  if (code === 'render.navigation') return 'page_error';
  if (code === 'render.timeout') return 'timeout';
  if (error instanceof ValidationError || code === 'api.validation') return 'rejected';
  const status = 'statusCode' in error ? Number(error.statusCode) : 500;
  if (status === 504) return 'timeout';
  return status < 500 ? 'rejected' : 'error';
}

/** The outcome of an HTTP render from its status and error (a 2xx or 3xx is a success, the 303 included). */
export function renderOutcomeOfResponse(status: number, error: unknown): RenderOutcome {
  if (status < 400) return 'success';
  if (error) return renderOutcomeOf(error);
  if (status === 504) return 'timeout';
  return status < 500 ? 'rejected' : 'error';
}

/**
 * The kind and mode of an HTTP endpoint that renders, from its log name
 * (`render-pdf`, `render-template-sync`, `render-merge`, `render-process-sync`…); undefined for one that does not
 * render here (templates, jobs, and the async endpoints, whose render is
 * counted when the job runs).
 */
export function renderEndpoint(name: string): { kind: RenderKind; mode: RenderMode } | undefined {
  const match = /^render-(pdf|screenshot|template|merge|process)(?:-(sync))?$/.exec(name);
  if (!match) return undefined;
  return { kind: match[1] as RenderKind, mode: match[2] === 'sync' ? 'sync' : 'raw' };
}
