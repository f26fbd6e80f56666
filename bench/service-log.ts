/**
 * Reads the local service's output into per-request figures: the handler's
 * request log line (its duration and the renderer's timings), the API
 * emulation's access line, and the runtime's REPORT line (the post-response
 * phase, hence what the invocation is billed). Pure: no I/O.
 */
import { parseReportLine, type ParsedReport } from '../scripts/local-runtime/report-line.js';
import { billedMs } from './cost.js';

/** Where the time of one service request went, in milliseconds, from the service's own log lines. */
export type ServerSide = {
  /** API Gateway's id of the request (the `apigw-requestid` the client got). */
  requestId: string;
  /** The local API Gateway emulation: request read to response written (whole milliseconds). */
  api: number;
  /** The Lambda handler: the middy stack from its first middleware to its last. */
  handler: number;
  /** The renderer, and its phases (context, setup, navigate, wait, capture). */
  render: number;
  phases: Record<string, number>;
  /** The post-response phase after the answer (the runtime's REPORT line); NaN when no REPORT line came. */
  postResponse: number;
  /** What the invocation is billed: handler + post-response, rounded up to 1 ms (NaN without a REPORT line). */
  billed: number;
  /**
   * The REPORT line's Billed Duration: the runtime's time from handing over the event to the answer
   * (so also work left over from before the last freeze that runs before the handler starts, and the
   * local runtime's own hand-over) plus the post-response phase; NaN without a REPORT line.
   */
  reportBilled: number;
};

/** A request's handler log line, with the API emulation's time paired to it. */
export type HandlerLine = { requestId: string; lambdaRequestId: string; durationMs: number; timings: Record<string, number>; api: number };

/** What the service's output has said so far, by request: handler lines by API Gateway id, REPORT lines by Lambda's id. */
export type ServiceLog = { handlers: Map<string, HandlerLine>; reports: Map<string, ParsedReport>; unpairedApi: number[]; unpairedHandlers: HandlerLine[] };

export function serverSideOf(handler: HandlerLine, report: ParsedReport | undefined): ServerSide {
  const { total, ...phases } = handler.timings;
  const postResponse = report?.postResponseMs ?? NaN;
  return {
    requestId: handler.requestId,
    api: handler.api,
    handler: handler.durationMs,
    render: total ?? NaN,
    phases,
    postResponse,
    billed: billedMs(handler.durationMs, postResponse),
    reportBilled: report?.billedMs ?? NaN,
  };
}

/**
 * Takes the new whole lines of the service's output into `log`: a handler's
 * request line (200s) is paired with the emulation's access line in order of
 * appearance, as each request writes one of each, and REPORT lines are kept
 * by Lambda request id until their request is asked for.
 */
export function readServiceLines(text: string, log: ServiceLog): void {
  for (const line of text.split('\n')) {
    const report = parseReportLine(line);
    if (report) {
      log.reports.set(report.requestId, report);
      continue;
    }
    const access = /^POST \/v1\/\S+ 200 (\d+) ms$/.exec(line.trim());
    if (access) {
      log.unpairedApi.push(Number(access[1]));
    } else if (line.startsWith('{') && line.includes('"request"')) {
      try {
        const entry = JSON.parse(line) as { message?: string; status?: number; durationMs?: number; timings?: Record<string, number>; requestId?: string; function_request_id?: string };
        if (entry.message === 'request' && entry.status === 200 && typeof entry.durationMs === 'number' && entry.requestId) {
          log.unpairedHandlers.push({ requestId: entry.requestId, lambdaRequestId: entry.function_request_id ?? '', durationMs: entry.durationMs, timings: entry.timings ?? {}, api: NaN });
        }
      } catch {
        // not a log line of ours
      }
    }
    while (log.unpairedApi.length && log.unpairedHandlers.length) {
      const handler = log.unpairedHandlers.shift() as HandlerLine;
      handler.api = log.unpairedApi.shift() as number;
      log.handlers.set(handler.requestId, handler);
    }
  }
}

/** An empty record of the service's output. */
export function emptyServiceLog(): ServiceLog {
  return { handlers: new Map(), reports: new Map(), unpairedApi: [], unpairedHandlers: [] };
}
