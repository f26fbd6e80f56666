import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { formatReportLine } from '../../../scripts/local-runtime/report-line.js';
import { emptyServiceLog, readServiceLines, serverSideOf } from '../../../bench/service-log.js';

/** The handler's request log line as Powertools writes it (injectLambdaContext adds function_request_id). */
const handlerLine = (gatewayId: string, lambdaId: string, durationMs: number) =>
  JSON.stringify({ level: 'INFO', message: 'request', function_request_id: lambdaId, endpoint: 'pdf', status: 200, durationMs, requestId: gatewayId, timings: { total: 70, navigate: 12 } });

describe('readServiceLines', () => {
  it("pairs a request's handler, access and REPORT lines: billed is the handler plus the post-response phase", () => {
    // Prepare
    const log = emptyServiceLog();
    const output = [
      handlerLine('gw-1', 'lambda-1', 90),
      'POST /v1/pdf 200 97 ms',
      formatReportLine({ requestId: 'lambda-1', runtimeMs: 91, postResponseMs: 42, memoryMb: 1536 }),
    ].join('\n');

    // Act
    readServiceLines(output, log);
    const handler = log.handlers.get('gw-1');

    // Assess
    assert.ok(handler);
    assert.deepEqual(serverSideOf(handler, log.reports.get(handler.lambdaRequestId)), {
      requestId: 'gw-1',
      api: 97,
      handler: 90,
      render: 70,
      phases: { navigate: 12 },
      postResponse: 42,
      billed: 132,
      // The runtime's part (91) runs from the event's hand-over: what Lambda's own line bills.
      reportBilled: 133,
    });
  });

  it('pairs by request id when a REPORT line comes after the next request (a sequential client)', () => {
    // Prepare: the first invocation's post-response phase ends while the second request is served elsewhere.
    const log = emptyServiceLog();
    readServiceLines([handlerLine('gw-1', 'lambda-1', 90), 'POST /v1/pdf 200 97 ms', handlerLine('gw-2', 'lambda-2', 80), 'POST /v1/pdf 200 86 ms'].join('\n'), log);
    readServiceLines(
      [
        formatReportLine({ requestId: 'lambda-2', runtimeMs: 81, postResponseMs: 30, memoryMb: 1536 }),
        formatReportLine({ requestId: 'lambda-1', runtimeMs: 91, postResponseMs: 55, memoryMb: 1536 }),
      ].join('\n'),
      log,
    );

    // Act
    const of = (id: string) => {
      const handler = log.handlers.get(id);
      assert.ok(handler);
      return serverSideOf(handler, log.reports.get(handler.lambdaRequestId));
    };

    // Assess
    assert.equal(of('gw-1').billed, 145);
    assert.equal(of('gw-1').api, 97);
    assert.equal(of('gw-2').billed, 110);
    assert.equal(of('gw-2').api, 86);
  });

  it('leaves the post-response phase unknown (NaN) until the REPORT line comes', () => {
    const log = emptyServiceLog();
    readServiceLines([handlerLine('gw-1', 'lambda-1', 90), 'POST /v1/pdf 200 97 ms'].join('\n'), log);
    const handler = log.handlers.get('gw-1');
    assert.ok(handler);
    const entry = serverSideOf(handler, log.reports.get(handler.lambdaRequestId));
    assert.ok(Number.isNaN(entry.postResponse));
    assert.ok(Number.isNaN(entry.billed));
    assert.ok(Number.isNaN(entry.reportBilled));
  });
});
