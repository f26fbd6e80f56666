import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { billedDurationMs, formatReportLine, parseReportLine } from '../../../scripts/local-runtime/report-line.js';

describe('formatReportLine', () => {
  it("writes Lambda's REPORT fields, the post-response phase counted in Duration and Billed Duration", () => {
    // Act
    const line = formatReportLine({ requestId: 'abc', runtimeMs: 101.2, postResponseMs: 38.5, memoryMb: 1536 });

    // Assess
    assert.equal(line, 'REPORT RequestId: abc\tDuration: 139.70 ms\tBilled Duration: 140 ms\tMemory Size: 1536 MB\tPostRuntimeExtensionsDuration: 38.50 ms');
  });

  it("adds Init Duration on an instance's first invocation", () => {
    const line = formatReportLine({ requestId: 'abc', runtimeMs: 10, postResponseMs: 0, memoryMb: 128, initMs: 812.345 });
    assert.match(line, /\tInit Duration: 812\.35 ms$/);
  });
});

describe('parseReportLine', () => {
  it('reads back what formatReportLine wrote', () => {
    // Prepare
    const line = formatReportLine({ requestId: '0f1e-42', runtimeMs: 95.25, postResponseMs: 61, memoryMb: 1536, initMs: 700 });

    // Act
    const report = parseReportLine(line);

    // Assess
    assert.deepEqual(report, { requestId: '0f1e-42', runtimeMs: 95.25, postResponseMs: 61, memoryMb: 1536, durationMs: 156.25, billedMs: 157, initMs: 700 });
  });

  it('bills a function without extensions its runtime alone', () => {
    const report = parseReportLine(formatReportLine({ requestId: 'r', runtimeMs: 80.1, postResponseMs: 0, memoryMb: 1536 }));
    assert.equal(report?.postResponseMs, 0);
    assert.equal(report?.billedMs, 81);
  });

  it('ignores every other line', () => {
    assert.equal(parseReportLine('POST /v1/pdf 200 123 ms'), undefined);
    assert.equal(parseReportLine('{"message":"request"}'), undefined);
    assert.equal(parseReportLine('REPORT RequestId: x\tDuration: soon'), undefined);
  });
});

describe('billedDurationMs', () => {
  it('rounds runtime plus post-response up to the millisecond', () => {
    assert.equal(billedDurationMs(100, 0), 100);
    assert.equal(billedDurationMs(100.01, 0), 101);
    assert.equal(billedDurationMs(60.4, 40.4), 101);
  });
});
