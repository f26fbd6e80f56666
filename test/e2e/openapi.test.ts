/**
 * GET /v1/openapi.json: a valid OpenAPI 3.1 document, served without a
 * token, naming exactly the routes serverless.yml declares, and describing
 * what the running service really answers (live answers of every route are
 * checked against the schema the document declares for their status).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { resolveService } from '../../scripts/local-runtime/service-definition.js';
import { thinItalicTtf } from '../helpers/font-files.js';
import { b64, startService, type RunningService } from '../helpers/service.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { waitFor } from '../helpers/wait-for.js';

type Doc = {
  openapi: string;
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }>; security?: unknown[] }>>;
  components: { schemas: Record<string, any>; securitySchemes: Record<string, any> };
  webhooks: Record<string, any>;
};

/** `METHOD /path` of every httpApi route serverless.yml declares, as osls resolves it. */
async function declaredRoutes(): Promise<string[]> {
  const service = await resolveService();
  return service.functions
    .flatMap((fn) => fn.httpRoutes)
    .map((route) => `${route.method} ${route.path}`)
    .sort();
}

describe('GET /v1/openapi.json', () => {
  let service: RunningService;
  let receiver: TestServer;
  let doc: Doc;
  let ajv: Ajv2020;
  const checked = new Set<string>();

  /** Asserts that a live answer is what the document declares for this route and status. */
  async function assertDeclared(method: string, path: string, response: Response): Promise<unknown> {
    const operation = doc.paths[path]?.[method.toLowerCase()];
    assert.ok(operation, `${method} ${path} is in the document`);
    const declared = operation.responses[String(response.status)];
    assert.ok(declared, `${method} ${path} declares status ${response.status}`);
    checked.add(`${method} ${path} ${response.status}`);
    const type = (response.headers.get('content-type') ?? '').split(';')[0]!.trim();
    if (!declared.content) {
      assert.equal((await response.arrayBuffer()).byteLength, 0, `${method} ${path} ${response.status} has no body`);
      return undefined;
    }
    assert.ok(type in declared.content, `${method} ${path} ${response.status}: ${type} is one of ${Object.keys(declared.content).join(', ')}`);
    const ref = declared.content[type]?.schema?.$ref;
    if (!ref || type !== 'application/json') {
      await response.arrayBuffer();
      return undefined;
    }
    const body: unknown = await response.json();
    const validate = ajv.getSchema(`urn:docrender:openapi${ref}`);
    assert.ok(validate, ref);
    assert.ok(validate(body), `${method} ${path} ${response.status} against ${ref}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 500)}`);
    return body;
  }

  before(async () => {
    const ok = (_req: unknown, res: ServerResponse) => res.writeHead(204).end();
    receiver = await startTestServer({ '/hook': ok });
    service = await startService();
    const response = await service.request('/v1/openapi.json', { token: null });
    assert.equal(response.status, 200);
    doc = (await response.json()) as Doc;
    ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema({ ...doc, $id: 'urn:docrender:openapi' });
  });

  after(async () => {
    await service?.stop();
    await receiver?.close();
  });

  it('is a valid OpenAPI 3.1 document, served without a token', async () => {
    // Act
    const result = await new Validator().validate(structuredClone(doc) as unknown as Parameters<Validator["validate"]>[0]);

    // Assess
    assert.equal(doc.openapi, '3.1.0');
    assert.deepEqual(result, { valid: true });
    assert.deepEqual(doc.components.securitySchemes.bearer, { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <token>' });
  });

  it('names every route serverless.yml declares, and no other', async () => {
    // Act
    const documented = Object.entries(doc.paths)
      .flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`))
      .sort();

    // Assess
    assert.deepEqual(documented, await declaredRoutes());
  });

  it('describes every request option with its limits and defaults, and the error bodies', () => {
    // Prepare
    const schemas = doc.components.schemas;
    const pdf = schemas.PdfOptions.properties;
    const pageOf = (name: string) => schemas[name].properties.page.anyOf[0].properties;

    // Assess: defaults of interface.md
    assert.equal(pdf.displayHeaderFooter.default, false);
    assert.equal(pdf.format.default, 'letter');
    assert.equal(pdf.scale.default, 1);
    assert.equal(pageOf('PdfRequest').waitUntil.default, 'auto');
    assert.equal(pageOf('PdfRequest').adblock.default, true);
    assert.equal(schemas.WebhookOptions.properties.receiveType.default, 'URL');
    // Limits
    assert.deepEqual([pdf.scale.anyOf[0].minimum, pdf.scale.anyOf[0].maximum], [0.1, 2]);
    assert.equal(pageOf('PdfRequest').waitForMilliseconds.anyOf[0].maximum, 5000);
    assert.equal(schemas.TemplateCreateRequest.properties.name.maxLength, 200);
    // Finishing options (issue 23) and the merge body
    assert.equal(pdf.watermark.anyOf[0].properties.opacity.default, 0.5);
    assert.equal(pdf.watermark.anyOf[0].properties.layer.default, 'over');
    assert.deepEqual(Object.keys(pdf.protection.anyOf[0].properties).sort(), ['ownerPassword', 'permissions', 'userPassword']);
    assert.equal(schemas.MergeRequest.properties.parts.maxItems, 20);
    // Unknown fields are refused, as the service does
    assert.deepEqual(schemas.PdfRequest.additionalProperties, { not: {} });
    // Margin: numbers or strings with a unit
    assert.deepEqual(pdf.margin.anyOf[0].properties.top.anyOf[0].anyOf.map((s: { type: string }) => s.type), ['number', 'string']);
    // Error bodies
    assert.deepEqual(schemas.ValidationError.required, ['message', 'code', 'fields']);
    assert.deepEqual(schemas.Error.required, ['message']);
    // The webhook, and the additions
    assert.equal(doc.webhooks.jobFinished.post.requestBody.content['application/json'].schema.$ref, '#/components/schemas/WebhookEvent');
    for (const path of ['/v1/jobs/{id}', '/v1/usage', '/v1/devices']) assert.ok(doc.paths[path]?.get, path);
  });

  it('declares what every route answers: live answers match their schemas', async () => {
    // Prepare
    const html = b64('<h1>OpenAPI</h1>');
    const call = async (method: string, path: string, init: { json?: unknown; token?: string | null; realPath?: string } = {}) => {
      const response = await service.request(init.realPath ?? path, {
        method,
        ...(init.json !== undefined ? { json: init.json } : {}),
        ...(init.token !== undefined ? { token: init.token } : {}),
      });
      return assertDeclared(method, path, response);
    };

    // Act and assess: renders, raw, sync, async
    await call('POST', '/v1/pdf', { json: { page: { html } } });
    await call('POST', '/v1/pdf/sync', { json: { page: { html } } });
    const pdfJob = (await call('POST', '/v1/pdf/async', { json: { page: { html }, webhook: { url: `${receiver.url}/hook` } } })) as { id: string };
    await call('POST', '/v1/screenshot', { json: { page: { html } } });
    await call('POST', '/v1/screenshot/sync', { json: { page: { html } } });
    await call('POST', '/v1/screenshot/async', { json: { page: { html }, webhook: { url: `${receiver.url}/hook`, receiveType: 'base64' } } });

    // Templates
    const template = (await call('POST', '/v1/templates', { json: { name: 'Spec', variables: { page: { html } } } })) as { id: string };
    const byId = (path: string) => ({ realPath: path.replace('{id}', template.id) });
    await call('GET', '/v1/templates/{id}', byId('/v1/templates/{id}'));
    await call('GET', '/v1/templates', { realPath: '/v1/templates?page=1' });
    await call('PUT', '/v1/templates/{id}', { ...byId('/v1/templates/{id}'), json: { name: 'Spec 2' } });
    await call('POST', '/v1/templates/{id}', { ...byId('/v1/templates/{id}'), json: { name: 'Spec 3' } });
    await call('POST', '/v1/template/{id}', { ...byId('/v1/template/{id}'), json: {} });
    await call('POST', '/v1/template/{id}/sync', { ...byId('/v1/template/{id}/sync'), json: {} });
    await call('POST', '/v1/template/{id}/async', { ...byId('/v1/template/{id}/async'), json: { webhook: { url: `${receiver.url}/hook` } } });
    await call('POST', '/v1/pdf/merge', { json: { parts: [{ page: { html } }, { templateId: template.id }] } });
    await call('POST', '/v1/pdf/merge/sync', { json: { parts: [{ page: { html } }] } });
    await call('POST', '/v1/pdf/merge/async', { json: { parts: [{ page: { html } }], webhook: { url: `${receiver.url}/hook` } } });

    // An existing PDF: the file, its facts (held to PdfFacts), sync, async, and a PDF/A it cannot reach (422)
    const existing = Buffer.from(await (await service.request('/v1/pdf', { json: { page: { html } } })).arrayBuffer()).toString('base64');
    await call('POST', '/v1/pdf/process', { json: { document: existing, pdf: { watermark: { text: 'Spec' } } } });
    await call('POST', '/v1/pdf/process', { json: { document: existing, output: 'JSON' } });
    await call('POST', '/v1/pdf/process/sync', { json: { document: existing } });
    await call('POST', '/v1/pdf/process/async', { json: { document: existing, output: 'JSON', webhook: { url: `${receiver.url}/hook` } } });
    await call('POST', '/v1/pdf/process', { json: { document: b64('%PDF-1.7 not a PDF') } });
    const helvetica = '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj 2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj 3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]/Resources<</Font<</F1<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>>>>>>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n';
    await call('POST', '/v1/pdf/process', { json: { document: b64(helvetica), pdf: { pdfa: 'PDF/A-2b' } } });

    // Jobs, account, the document and the docs
    await waitFor('the webhook calls', () => (receiver.requests.length >= 4 ? true : undefined));
    await call('GET', '/v1/jobs/{id}', { realPath: `/v1/jobs/${pdfJob.id}` });
    await call('GET', '/v1/devices');
    await call('GET', '/v1/usage');
    await call('GET', '/v1/openapi.json', { token: null });
    await call('GET', '/docs', { token: null });
    await call('GET', '/docs/api-reference.js', { token: null });
    await call('GET', '/', { token: null });
    await call('GET', '/studio/{file}', { token: null, realPath: '/studio/studio.js' });
    await call('GET', '/studio/{file}', { token: null, realPath: '/studio/studio.css' });
    await call('GET', '/studio/{file}', { token: null, realPath: '/studio/missing.js' });
    await call('DELETE', '/v1/templates/{id}', byId('/v1/templates/{id}'));
    // Fonts: uploaded, listed, read, a broken file named, deleted, and another's id missing
    const font = (await call('POST', '/v1/fonts', { json: { file: thinItalicTtf().toString('base64'), family: 'Spec Sans' } })) as { id: string };
    await call('GET', '/v1/fonts');
    await call('GET', '/v1/fonts/{id}', { realPath: `/v1/fonts/${font.id}` });
    await call('POST', '/v1/fonts', { json: { file: b64('not a font at all, long enough') } });
    await call('DELETE', '/v1/fonts/{id}', { realPath: `/v1/fonts/${font.id}` });
    await call('GET', '/v1/fonts/{id}', { realPath: `/v1/fonts/${font.id}` });
    // Batches: accepted, read, cancelled, and a bad item named
    const batch = (await call('POST', '/v1/batches', { json: { items: [{ page: { html } }, { name: 'second', page: { html } }] } })) as { id: string };
    await call('GET', '/v1/batches/{id}', { realPath: `/v1/batches/${batch.id}` });
    await call('DELETE', '/v1/batches/{id}', { realPath: `/v1/batches/${batch.id}` });
    await call('POST', '/v1/batches', { json: { items: [{ page: { html, templateData: {} } }] } });
    await call('GET', '/v1/batches/{id}', { realPath: '/v1/batches/bat_missing' });

    // Errors: 400, 401, 403, 404
    await call('POST', '/v1/pdf', { json: { page: { html }, pdf: { margin: { top: true } } } });
    await call('GET', '/v1/templates', { realPath: '/v1/templates?page=0' });
    await call('GET', '/v1/usage', { token: 'not-a-token-of-this-service' });
    const { stdout } = await service.tokens('create', '--inactive');
    await call('GET', '/v1/devices', { token: stdout.trim() });
    await call('GET', '/v1/templates/{id}', { realPath: '/v1/templates/tpl_missing' });
    await call('GET', '/v1/jobs/{id}', { realPath: '/v1/jobs/job_missing' });

    // Every documented route was exercised
    const exercised = new Set([...checked].map((entry) => entry.split(' ').slice(0, 2).join(' ')));
    assert.deepEqual([...exercised].sort(), await declaredRoutes());
  });

  it('describes the webhook body the service sends', async () => {
    // Prepare
    const validate = ajv.getSchema('urn:docrender:openapi#/components/schemas/WebhookEvent')!;
    const calls = await waitFor('the webhook calls', () => (receiver.requests.length >= 3 ? receiver.requests : undefined));

    // Assess
    for (const call of calls) {
      const body: unknown = JSON.parse(call.body);
      assert.ok(validate(body), `${ajv.errorsText(validate.errors)}\n${call.body.slice(0, 300)}`);
      assert.match(String(call.headers['x-doczilla-signature']), /^[0-9a-f]{64}$/);
    }
  });
});
