import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { MetricUnit as MetricUnitValue } from '@aws-lambda-powertools/metrics/types';
import { ValidationError } from '../errors.js';

/**
 * Service metrics as CloudWatch embedded metric format (EMF): one JSON line
 * on stdout per event, which CloudWatch Logs turns into metrics in the
 * `POWERTOOLS_METRICS_NAMESPACE` namespace (DocRender). No API call, no
 * cloudwatch:PutMetricData permission, nothing to flush at the end of an
 * invocation. Each event gets its own Metrics instance, so concurrent
 * invocations (the local runtime runs several in one process) never mix
 * dimensions.
 *
 * Metrics:
 * - `Renders` (Count) and `RenderDuration` (Milliseconds), by `kind`
 *   (pdf, screenshot, template), `mode` (raw, sync, async) and `outcome`;
 * - `QueueAge` (Milliseconds) by `queue`: how long a message waited before a consumer got it;
 * - `WebhookFailures` (Count) by `final` (no: it will be retried; yes: given up).
 */

export type RenderKind = 'pdf' | 'screenshot' | 'template';
export type RenderMode = 'raw' | 'sync' | 'async';
/**
 * `success`; `page_error` (the page could not be loaded: the caller's page);
 * `rejected` (refused after the quota was spent, e.g. a storage URL);
 * `timeout` (the render budget ran out); `error` (the service failed).
 */
export type RenderOutcome = 'success' | 'page_error' | 'rejected' | 'timeout' | 'error';

export type RenderEvent = { kind: RenderKind; mode: RenderMode; outcome: RenderOutcome; durationMs: number };

/**
 * On Lambda metrics are on unless `POWERTOOLS_METRICS_DISABLED=true`; anywhere
 * else (npm start, tests) they are off unless `POWERTOOLS_METRICS_DISABLED=false`,
 * so local runs do not print EMF lines between their logs.
 */
export function metricsEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.POWERTOOLS_METRICS_DISABLED !== undefined) return env.POWERTOOLS_METRICS_DISABLED.toLowerCase() !== 'true';
  return env.AWS_LAMBDA_FUNCTION_NAME !== undefined;
}

function emit(dimensions: Record<string, string>, values: { name: string; unit: MetricUnitValue; value: number }[]): void {
  if (!metricsEnabled()) return;
  const metrics = new Metrics({
    namespace: process.env.POWERTOOLS_METRICS_NAMESPACE || 'DocRender',
    serviceName: process.env.POWERTOOLS_SERVICE_NAME || 'docrender',
  });
  metrics.addDimensions(dimensions);
  for (const { name, unit, value } of values) metrics.addMetric(name, unit, value);
  metrics.publishStoredMetrics();
}

/** Counts one render and its duration (what the caller waited, or the job's run). */
export function recordRender(event: RenderEvent): void {
  emit({ kind: event.kind, mode: event.mode, outcome: event.outcome }, [
    { name: 'Renders', unit: MetricUnit.Count, value: 1 },
    { name: 'RenderDuration', unit: MetricUnit.Milliseconds, value: Math.max(0, Math.round(event.durationMs)) },
  ]);
}

/** Records how long a queue message waited between being sent and reaching a consumer. */
export function recordQueueAge(queue: string, ageMs: number): void {
  if (!Number.isFinite(ageMs)) return;
  emit({ queue }, [{ name: 'QueueAge', unit: MetricUnit.Milliseconds, value: Math.max(0, Math.round(ageMs)) }]);
}

/** Counts a webhook attempt that did not deliver; `final` when no attempt follows. */
export function recordWebhookFailure(final: boolean): void {
  emit({ final: final ? 'yes' : 'no' }, [{ name: 'WebhookFailures', unit: MetricUnit.Count, value: 1 }]);
}

/**
 * The outcome of a render from what it ended with: nothing (success), a
 * thrown error, or a job's recorded error (`{code, message}`, e.g.
 * `render.navigation`, `render.timeout`).
 */
export function renderOutcomeOf(error: unknown): RenderOutcome {
  if (error === undefined || error === null) return 'success';
  if (typeof error !== 'object') return 'error';
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
 * (`render-pdf`, `render-template-sync`…); undefined for one that does not
 * render here (templates, jobs, and the async endpoints, whose render is
 * counted when the job runs).
 */
export function renderEndpoint(name: string): { kind: RenderKind; mode: RenderMode } | undefined {
  const match = /^render-(pdf|screenshot|template)(?:-(sync))?$/.exec(name);
  if (!match) return undefined;
  return { kind: match[1] as RenderKind, mode: match[2] === 'sync' ? 'sync' : 'raw' };
}
