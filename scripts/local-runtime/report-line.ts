/**
 * Lambda's `REPORT` line, which the platform writes to a function's log once
 * an invocation has ended: here with the post-response phase
 * (`PostRuntimeExtensionsDuration`, a CloudWatch metric on Lambda) written
 * out, so that what an invocation is billed can be read from the log.
 */
export type InvocationReport = {
  requestId: string;
  /** The runtime's part: the event handed to the handler to its answer, ms. */
  runtimeMs: number;
  /** Answer to freeze: the extensions' post-response phase, ms (0 without extensions). */
  postResponseMs: number;
  memoryMb: number;
  /** The instance's INIT, on its first invocation only (billed since August 2025). */
  initMs?: number | undefined;
};

/** A parsed `REPORT` line: the report and the duration Lambda bills for the invocation. */
export type ParsedReport = InvocationReport & { durationMs: number; billedMs: number };

/**
 * What an invocation is billed, ms: its runtime and its post-response phase
 * (Lambda's Duration includes the extensions' time after the answer),
 * rounded up to the millisecond as Lambda bills.
 */
export function billedDurationMs(runtimeMs: number, postResponseMs: number): number {
  return Math.ceil(runtimeMs + postResponseMs);
}

/** The `REPORT` line of an ended invocation, tab-separated as Lambda writes it. */
export function formatReportLine(report: InvocationReport): string {
  const duration = report.runtimeMs + report.postResponseMs;
  const fields = [
    `REPORT RequestId: ${report.requestId}`,
    `Duration: ${duration.toFixed(2)} ms`,
    `Billed Duration: ${billedDurationMs(report.runtimeMs, report.postResponseMs)} ms`,
    `Memory Size: ${report.memoryMb} MB`,
    `PostRuntimeExtensionsDuration: ${report.postResponseMs.toFixed(2)} ms`,
    ...(report.initMs === undefined ? [] : [`Init Duration: ${report.initMs.toFixed(2)} ms`]),
  ];
  return fields.join('\t');
}

/** Reads a line written by `formatReportLine`; undefined for any other line. */
export function parseReportLine(line: string): ParsedReport | undefined {
  const text = line.trim();
  if (!text.startsWith('REPORT RequestId: ')) return undefined;
  const fields = new Map<string, string>();
  for (const part of text.split('\t')) {
    const colon = part.indexOf(': ');
    if (colon > 0) fields.set(part.slice(0, colon), part.slice(colon + 2));
  }
  const ms = (name: string) => {
    const value = /^(\d+(?:\.\d+)?) (?:ms|MB)$/.exec(fields.get(name) ?? '')?.[1];
    return value === undefined ? undefined : Number(value);
  };
  const requestId = fields.get('REPORT RequestId');
  const durationMs = ms('Duration');
  const billedMs = ms('Billed Duration');
  const postResponseMs = ms('PostRuntimeExtensionsDuration') ?? 0;
  const memoryMb = ms('Memory Size');
  if (!requestId || durationMs === undefined || billedMs === undefined || memoryMb === undefined) return undefined;
  const initMs = ms('Init Duration');
  return { requestId, runtimeMs: Math.round((durationMs - postResponseMs) * 100) / 100, postResponseMs, memoryMb, durationMs, billedMs, ...(initMs === undefined ? {} : { initMs }) };
}
