import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { b64, startService, type RunningService } from '../helpers/service.js';
import { readImage, readPdf } from '../helpers/documents.js';

type TemplateBody = { id: string; name: string; output: string; createdAt: string; updatedAt: string; variables?: Record<string, unknown> };

describe('templates (management and rendering)', () => {
  let service: RunningService;
  let otherToken: string;
  before(async () => {
    service = await startService();
    otherToken = (await service.tokens('create')).stdout.trim();
  });
  after(async () => {
    await service?.stop();
  });

  const create = async (body: unknown, token?: string) => {
    const res = await service.request('/v1/templates', { json: body, token });
    return { status: res.status, body: (await res.json()) as TemplateBody & { fields?: Record<string, string> } };
  };

  it('creates a template (201) with its variables, and infers the output', async () => {
    const variables = { page: { html: b64('<p>hi</p>') }, pdf: { format: 'a4' } };
    const res = await create({ name: 'Invoice', variables });
    assert.equal(res.status, 201);
    assert.match(res.body.id, /^tpl_/);
    assert.equal(res.body.name, 'Invoice');
    assert.equal(res.body.output, 'PDF');
    assert.deepEqual(res.body.variables, variables);
    assert.ok(!Number.isNaN(Date.parse(res.body.createdAt)));
    assert.equal(res.body.createdAt, res.body.updatedAt);
    const image = await create({ name: 'Shot', variables: { screenshot: { type: 'jpeg' } } });
    assert.equal(image.body.output, 'IMAGE');
    const explicit = await create({ name: 'Explicit', output: 'IMAGE' });
    assert.equal(explicit.body.output, 'IMAGE');
  });

  it('refuses invalid templates with 400 naming the field', async () => {
    for (const [body, field] of [
      [{ name: 'x'.repeat(201) }, 'name'],
      [{}, 'name'],
      [{ name: 'a', output: 'GIF' }, 'output'],
      [{ name: 'a', variables: { page: { waitForMilliseconds: 9000 } } }, 'variables.page.waitForMilliseconds'],
      [{ name: 'a', variables: { page: { html: b64('x'), url: 'https://x.example' } } }, 'variables.page.url'],
      [{ name: 'a', variables: { webhook: {} } }, 'variables.webhook'],
    ] as const) {
      const res = await create(body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(typeof res.body.fields?.[field], 'string', `${field} in ${JSON.stringify(res.body.fields)}`);
    }
  });

  it('reads, updates (200, whole template) and deletes (204) a template', async () => {
    const { body: created } = await create({ name: 'Draft', variables: { page: { url: 'https://example.com' } } });
    const read = await service.request(`/v1/templates/${created.id}`);
    assert.equal(read.status, 200);
    assert.deepEqual(await read.json(), created);

    await new Promise((r) => setTimeout(r, 5));
    const renamed = await service.request(`/v1/templates/${created.id}`, { method: 'PUT', json: { name: 'Final' } });
    assert.equal(renamed.status, 200);
    const renamedBody = (await renamed.json()) as TemplateBody;
    assert.equal(renamedBody.name, 'Final');
    assert.deepEqual(renamedBody.variables, created.variables);
    assert.ok(renamedBody.updatedAt > created.updatedAt);

    const newVariables = { page: { url: 'https://example.org' }, screenshot: { type: 'webp' } };
    const changed = await service.request(`/v1/templates/${created.id}`, { method: 'PUT', json: { variables: newVariables } });
    const changedBody = (await changed.json()) as TemplateBody;
    assert.deepEqual(changedBody.variables, newVariables);
    assert.equal(changedBody.output, 'IMAGE');
    const output = await service.request(`/v1/templates/${created.id}`, { method: 'PUT', json: { output: 'PDF' } });
    assert.equal(((await output.json()) as TemplateBody).output, 'PDF');

    const empty = await service.request(`/v1/templates/${created.id}`, { method: 'PUT', json: {} });
    assert.equal(empty.status, 400);

    const deleted = await service.request(`/v1/templates/${created.id}`, { method: 'DELETE' });
    assert.equal(deleted.status, 204);
    assert.equal(await deleted.text(), '');
    assert.equal((await service.request(`/v1/templates/${created.id}`)).status, 404);
    assert.equal((await service.request(`/v1/templates/${created.id}`, { method: 'DELETE' })).status, 404);
  });

  it('answers 404 {message} for an unknown id on every template endpoint, before validating the body', async () => {
    const unknown = 'tpl_00000000000000000000000000';
    const calls: Array<[string, RequestInit & { json?: unknown }]> = [
      [`/v1/templates/${unknown}`, {}],
      [`/v1/templates/${unknown}`, { method: 'PUT', json: { name: 'x' } }],
      [`/v1/templates/${unknown}`, { method: 'PUT', json: { bogus: 1 } }],
      [`/v1/templates/${unknown}`, { method: 'DELETE' }],
      [`/v1/template/${unknown}`, { json: { bogus: 1 } }],
      ['/v1/templates/not-even-an-id', {}],
    ];
    for (const [path, init] of calls) {
      const res = await service.request(path, init);
      assert.equal(res.status, 404, `${init.method ?? 'GET'} ${path}`);
      assert.deepEqual(Object.keys((await res.json()) as object), ['message']);
    }
  });

  it("hides one account's templates from another: 404 on read, update, delete and render, absent from the list", async () => {
    const { body: mine } = await create({ name: 'Mine', variables: { page: { html: b64('<p>secret</p>') } } });
    const asOther = (path: string, init: RequestInit & { json?: unknown } = {}) => service.request(path, { ...init, token: otherToken });
    assert.equal((await asOther(`/v1/templates/${mine.id}`)).status, 404);
    assert.equal((await asOther(`/v1/templates/${mine.id}`, { method: 'PUT', json: { name: 'stolen' } })).status, 404);
    assert.equal((await asOther(`/v1/templates/${mine.id}`, { method: 'DELETE' })).status, 404);
    assert.equal((await asOther(`/v1/template/${mine.id}`, { json: {} })).status, 404);
    const list = (await (await asOther('/v1/templates')).json()) as { data: TemplateBody[] };
    assert.equal(list.data.some((t) => t.id === mine.id), false);
    // Still intact for its owner.
    const read = (await (await service.request(`/v1/templates/${mine.id}`)).json()) as TemplateBody;
    assert.equal(read.name, 'Mine');
  });

  it('lists 20 a page, newest first, without variables, with page flags', async () => {
    const fresh = (await service.tokens('create')).stdout.trim();
    const ids: string[] = [];
    for (let i = 0; i < 23; i++) {
      const res = await create({ name: `T${i}`, variables: { page: { url: 'https://example.com' } } }, fresh);
      ids.push(res.body.id);
    }
    const page1 = (await (await service.request('/v1/templates', { token: fresh })).json()) as {
      hasNextPage: boolean; hasPreviousPage: boolean; data: TemplateBody[];
    };
    assert.equal(page1.data.length, 20);
    assert.equal(page1.hasNextPage, true);
    assert.equal(page1.hasPreviousPage, false);
    assert.equal(page1.data[0]?.name, 'T22');
    assert.deepEqual(Object.keys(page1.data[0] ?? {}).sort(), ['createdAt', 'id', 'name', 'output', 'updatedAt']);
    const page2 = (await (await service.request('/v1/templates?page=2', { token: fresh })).json()) as typeof page1;
    assert.deepEqual(page2.data.map((t) => t.name), ['T2', 'T1', 'T0']);
    assert.equal(page2.hasNextPage, false);
    assert.equal(page2.hasPreviousPage, true);
    for (const bad of ['0', '-1', 'abc', '1.5']) {
      const res = await service.request(`/v1/templates?page=${bad}`, { token: fresh });
      assert.equal(res.status, 400, bad);
      assert.ok(((await res.json()) as { fields: Record<string, string> }).fields.page);
    }
  });

  it('renders a stored A5 htmlTemplate with only templateData in the request, and landscape on request', async () => {
    const { body: t } = await create({
      name: 'Letter',
      variables: { page: { htmlTemplate: b64('<h1>Dear {{name}}</h1>') }, pdf: { format: 'a5' } },
    });
    const res = await service.request(`/v1/template/${t.id}`, { json: { page: { templateData: { name: 'Grace' } } } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/pdf');
    const pdf = await readPdf(new Uint8Array(await res.arrayBuffer()));
    assert.ok(Math.abs((pdf.pages[0]?.width ?? 0) - 5.83) < 0.02 && Math.abs((pdf.pages[0]?.height ?? 0) - 8.27) < 0.02, JSON.stringify(pdf.pages[0]));
    assert.match(pdf.text[0] ?? '', /Dear Grace/);

    const landscape = await service.request(`/v1/template/${t.id}`, {
      json: { page: { templateData: { name: 'Grace' } }, pdf: { landscape: true } },
    });
    const wide = await readPdf(new Uint8Array(await landscape.arrayBuffer()));
    assert.ok(Math.abs((wide.pages[0]?.width ?? 0) - 8.27) < 0.02 && Math.abs((wide.pages[0]?.height ?? 0) - 5.83) < 0.02, JSON.stringify(wide.pages[0]));
  });

  it("renders a template's stored header and footer on every page, its htmlTemplate filled with the request's templateData beside the page variables", async () => {
    // Prepare
    const { body: t } = await create({
      name: 'Statement',
      variables: {
        page: { htmlTemplate: b64('<h1>Statement for {{customer}}</h1><h1 style="break-before:page">Details</h1><p style="break-before:page">End</p>'), templateData: { customer: 'stored' } },
        pdf: {
          header: { htmlTemplate: b64('<p style="font:9px sans-serif">{{customer}} · {{section}}</p>'), firstPage: { html: b64('<p style="font:9px sans-serif">Cover band</p>') } },
          footer: { htmlTemplate: b64('<p style="font:9px sans-serif">Page {{pageNumber}} of {{totalPages}}</p>') },
        },
      },
    });

    // Act: the request's templateData over the stored one, and a pageNumber the band's own variable outranks.
    const res = await service.request(`/v1/template/${t.id}`, { json: { page: { templateData: { customer: 'Grace Hopper', pageNumber: 99 } } } });

    // Assess
    assert.equal(res.status, 200);
    const pdf = await readPdf(new Uint8Array(await res.arrayBuffer()));
    assert.equal(pdf.pageCount, 3);
    const text = pdf.text.map((page) => page.replace(/\s+/g, ' '));
    assert.match(text[0] ?? '', /Cover band/);
    assert.match(text[1] ?? '', /Grace Hopper · Details/);
    assert.match(text[2] ?? '', /Grace Hopper · Details/);
    text.forEach((page, index) => assert.match(page, new RegExp(`Page ${index + 1} of 3`)));
  });

  it('renders an IMAGE template as an image, ignoring pdf options', async () => {
    const { body: t } = await create({
      name: 'Card',
      variables: { page: { html: b64('<p>card</p>') }, screenshot: { type: 'jpeg', viewport: { width: 400, height: 300, deviceScaleFactor: 1 } } },
    });
    const res = await service.request(`/v1/template/${t.id}`, { json: { pdf: { format: 'a4' } } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'image/jpeg');
    const image = readImage(new Uint8Array(await res.arrayBuffer()));
    assert.deepEqual([image.width, image.height], [400, 300]);
  });

  it('validates the merged options: no page source is a 400 on page.url', async () => {
    const { body: t } = await create({ name: 'Empty', variables: { pdf: { format: 'a4' } } });
    const res = await service.request(`/v1/template/${t.id}`, { json: {} });
    assert.equal(res.status, 400);
    assert.ok(((await res.json()) as { fields: Record<string, string> }).fields['page.url']);
  });
});
