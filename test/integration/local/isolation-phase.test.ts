import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseReportLine, type ParsedReport } from '../../../scripts/local-runtime/report-line.js';
import { b64, startService, type RunningService } from '../../helpers/service.js';
import { waitFor } from '../../helpers/wait-for.js';

/**
 * The REPORT line of the invocation that served the API request `apigwId`:
 * the handler's request log line names Lambda's request id, which the
 * runtime's REPORT line (written once the post-response phase has ended) carries.
 */
function reportOf(output: string, apigwId: string): ParsedReport | undefined {
  let lambdaId: string | undefined;
  for (const line of output.split('\n')) {
    if (!line.startsWith('{') || !line.includes(apigwId)) continue;
    const entry = JSON.parse(line) as { message?: string; requestId?: string; function_request_id?: string };
    if (entry.message === 'request' && entry.requestId === apigwId) lambdaId = entry.function_request_id;
  }
  if (!lambdaId) return undefined;
  return output
    .split('\n')
    .map(parseReportLine)
    .find((report) => report?.requestId === lambdaId);
}

// ISOLATION_PHASE (lib/config.ts) through the local runtime, which serves the Extensions API as Lambda does.
for (const phase of ['inline', 'post-response'] as const) {
  describe(`ISOLATION_PHASE=${phase} › a rendering function under the local runtime`, () => {
    let service: RunningService;
    before(async () => {
      service = await startService(phase === 'inline' ? { ISOLATION_PHASE: 'inline' } : {});
    });
    after(async () => {
      await service?.stop();
    });

    const expected = phase === 'inline' ? 'registers no extension: its invocations end with the answer' : 'registers its extension: the used session closes after the answer, billed';
    it(`renders, and ${expected}`, async () => {
      // Act: two renders, the second in the session opened for it
      const reports: ParsedReport[] = [];
      for (const label of ['first', 'second']) {
        const res = await service.request('/v1/pdf', { json: { page: { html: b64(`<p>${label}</p>`) } } });
        const body = Buffer.from(await res.arrayBuffer());
        assert.equal(res.status, 200, body.toString().slice(0, 300));
        assert.equal(body.subarray(0, 5).toString(), '%PDF-');
        const id = res.headers.get('apigw-requestid') ?? '';
        reports.push(await waitFor(`the REPORT line of ${label}`, () => reportOf(service.output(), id)));
      }

      // Assess: the runtime waited for an extension after the answer only in the default
      const postResponse = reports.map((report) => report.postResponseMs);
      if (phase === 'inline') assert.deepEqual(postResponse, [0, 0]);
      else assert.ok(postResponse.every((ms) => ms > 0), `post-response phases ${postResponse.join(', ')} ms`);
    });
  });
}
