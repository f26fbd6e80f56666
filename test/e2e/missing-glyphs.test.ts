import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { b64, startService, type RunningService } from '../helpers/service.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * Characters no font draws (issue 46) through the API of `npm start`: the
 * report in the raw answer's header, the job's record and its webhook; a
 * refusal with "fail" (sync, from a stored template, async) that charges
 * nothing.
 */

// U+E000 is private use: no font of the layer (nor of this machine) has it, so it can only be drawn as .notdef.
const MISSING = '\uE000';

type Usage = { quota: { used: number } };
type ErrorBody = { code: string; message: string; fields?: Record<string, string> };
type Report = { count: number; codePoints: string[]; firstPage?: number };

describe('characters no font draws, through the API', () => {
  let service: RunningService;
  let receiver: TestServer;
  let token: string;

  before(async () => {
    const ok = (_req: unknown, res: ServerResponse) => res.writeHead(200).end('ok');
    receiver = await startTestServer({ '/hook/reported': ok, '/hook/refused': ok });
    service = await startService();
    token = (await service.tokens('create', '--limit', '100')).stdout.trim();
  });
  after(async () => {
    await service?.stop();
    await receiver?.close();
  });

  const post = (path: string, json: unknown) => service.request(path, { json, token });
  const used = async () => ((await (await service.request('/v1/usage', { token })).json()) as Usage).quota.used;
  // A hang guard: the job waits its turn in the local queue behind a loaded machine's other work.
  const webhook = (path: string) => waitFor(`the webhook ${path}`, () => receiver.requests.find((call) => call.url === path), 180_000);

  it('names them in X-Missing-Glyphs on a PDF answered as a file', async () => {
    // Act
    const res = await post('/v1/pdf', { page: { html: b64(`<p>Total ${MISSING} 12</p>`) } });

    // Assess
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal(res.headers.get('x-missing-glyphs'), 'count=1; first-page=1; code-points=U+E000');
  });

  it('refuses the render with "fail": a 422 naming the character and the field, and the account is not charged', async () => {
    // Prepare
    const before = await used();

    // Act
    const res = await post('/v1/pdf', { page: { html: b64(`<p>Total ${MISSING} 12</p>`) }, pdf: { missingGlyphs: 'fail' } });

    // Assess
    assert.equal(res.status, 422);
    const body = (await res.json()) as ErrorBody;
    assert.equal(body.code, 'render.missing_glyphs');
    assert.match(body.fields?.['pdf.missingGlyphs'] ?? '', /U\+E000/);
    assert.equal(res.headers.get('x-missing-glyphs'), null);
    assert.equal(await used(), before);
  });

  it('keeps "fail" in a stored template: rendering it refuses a character no font draws', async () => {
    // Prepare
    const created = await post('/v1/templates', { name: 'Strict', variables: { page: { htmlTemplate: b64('<p>{{name}}</p>') }, pdf: { missingGlyphs: 'fail' } } });
    assert.equal(created.status, 201, await created.clone().text());
    const { id } = (await created.json()) as { id: string };
    const before = await used();

    // Act
    const refused = await post(`/v1/template/${id}`, { page: { templateData: { name: `Ada ${MISSING}` } } });
    const rendered = await post(`/v1/template/${id}`, { page: { templateData: { name: 'Ada' } } });

    // Assess
    assert.equal(refused.status, 422, await refused.clone().text());
    assert.equal(((await refused.json()) as ErrorBody).code, 'render.missing_glyphs');
    assert.equal(rendered.status, 200, await rendered.clone().text());
    assert.equal(await used(), before + 1, 'the refused render is not charged, the other is');
  });

  it('reports them on an async job: its record and its webhook carry the report', async () => {
    // Act
    const queued = await post('/v1/pdf/async', { page: { html: b64(`<p>${MISSING}</p>`) }, webhook: { url: `${receiver.url}/hook/reported` } });
    const call = await webhook('/hook/reported');

    // Assess
    assert.equal(queued.status, 201, await queued.clone().text());
    const { id } = (await queued.json()) as { id: string };
    const sent = JSON.parse(call.body) as { id: string; status: string; missingGlyphs?: Report };
    assert.deepEqual([sent.id, sent.status, sent.missingGlyphs], [id, 'COMPLETED', { count: 1, codePoints: ['U+E000'], firstPage: 1 }]);
    const job = (await (await service.request(`/v1/jobs/${id}`, { token })).json()) as { missingGlyphs?: Report };
    assert.deepEqual(job.missingGlyphs, sent.missingGlyphs);
  });

  it('ends an async job refused by "fail" FAILED with the 422\'s reason, its webhook sent, and charges nothing', async () => {
    // Prepare
    const before = await used();

    // Act
    const queued = await post('/v1/pdf/async', { page: { html: b64(`<p>${MISSING}</p>`) }, pdf: { missingGlyphs: 'fail' }, webhook: { url: `${receiver.url}/hook/refused` } });
    const call = await webhook('/hook/refused');

    // Assess
    assert.equal(queued.status, 201, await queued.clone().text());
    const sent = JSON.parse(call.body) as { status: string; error?: ErrorBody; missingGlyphs?: Report };
    assert.equal(sent.status, 'FAILED');
    assert.equal(sent.error?.code, 'render.missing_glyphs');
    assert.match(sent.error?.fields?.['pdf.missingGlyphs'] ?? '', /U\+E000/);
    // The unit held when the job was queued comes back with its refund.
    assert.equal(await waitFor('the refund', async () => ((await used()) === before ? true : undefined)), true);
  });
});
