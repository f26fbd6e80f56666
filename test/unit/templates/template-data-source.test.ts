import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as v from 'valibot';
import { ValidationError } from '../../../lib/errors.js';
import type { DocumentInput } from '../../../lib/schemas/merge-requests.js';
import { PdfRequestSchema } from '../../../lib/schemas/render-requests.js';
import { readsTemplateData, withStandInData, withTemplateData } from '../../../lib/templates/template-data-source.js';
import { buildDocumentPlan } from '../../../lib/plan/build-plan.js';
import { templatesFor } from '../../../lib/templates/template-engine.js';
import { b64 } from '../../helpers/service.js';
import { memoryFileStore } from '../jobs/fakes.js';

const BUCKET = 'docrender-test-filesbucket';

/** A file store holding `files` (key → body). */
function storeWith(files: Record<string, string>) {
  const store = memoryFileStore();
  for (const [key, body] of Object.entries(files)) store.files.set(key, { body: Buffer.from(body), file: { key, contentType: 'application/json', size: body.length, createdAt: new Date().toISOString() } });
  return { files: store, filesBucket: BUCKET };
}

const render = (templateDataUrl: string): DocumentInput => ({ output: 'PDF', page: { htmlTemplate: b64('<p>{{customer}}: {{rows.length}} rows</p>'), templateDataUrl } });

/** The 400's field messages, or a failure when it resolved. */
async function refusal(work: Promise<unknown>): Promise<Record<string, string>> {
  const error = await work.then(() => assert.fail('read'), (e: unknown) => e);
  assert.ok(error instanceof ValidationError, String(error));
  return error.fields;
}

describe('template data by reference (page.templateDataUrl)', () => {
  it("reads the caller's own upload into the page's templateData, and the plan renders with it", async () => {
    // Prepare
    const deps = storeWith({ 'uploads/acct-1/report.json': JSON.stringify({ customer: 'Ada', rows: [1, 2, 3] }) });
    const input = render(`s3://${BUCKET}/uploads/acct-1/report.json`);

    // Act
    const read = await withTemplateData(input, 'acct-1', deps, 10_000);

    // Assess
    assert.ok(readsTemplateData(input));
    assert.ok(!readsTemplateData(read));
    const page = (read as { page: Record<string, unknown> }).page;
    assert.deepEqual(page.templateData, { customer: 'Ada', rows: [1, 2, 3] });
    assert.equal(page.templateDataUrl, undefined);
    const plan = buildDocumentPlan(read, await templatesFor(read));
    assert.match(JSON.stringify(plan), /Ada: 3 rows/);
  });

  it("refuses another account's upload, a key outside the upload prefix, a missing key, and what is no JSON object, each a 400 on the field", async () => {
    const deps = storeWith({
      'uploads/acct-2/theirs.json': '{"customer":"Eve"}',
      'files/acct-1/rendered.json': '{}',
      'uploads/acct-1/list.json': '[1,2]',
      'uploads/acct-1/broken.json': '{"customer":',
    });
    for (const [key, message] of [
      ['uploads/acct-2/theirs.json', /only your account's uploads are read/],
      ['files/acct-1/rendered.json', /only your account's uploads are read/],
      ['uploads/acct-1/../acct-2/theirs.json', /only your account's uploads are read/],
      ['uploads/acct-1/absent.json', /No file at this key/],
      ['uploads/acct-1/list.json', /Must be a JSON object/],
      ['uploads/acct-1/broken.json', /Not valid JSON/],
    ] as const) {
      const fields = await refusal(withTemplateData(render(`s3://${BUCKET}/${key}`), 'acct-1', deps, 10_000));
      assert.match(fields['page.templateDataUrl'] ?? '', message, key);
    }
    // ...and another bucket, whatever its keys
    const fields = await refusal(withTemplateData(render('s3://another-bucket/uploads/acct-1/report.json'), 'acct-1', deps, 10_000));
    assert.match(fields['page.templateDataUrl'] ?? '', /only your account's uploads/);
  });

  it('refuses an http(s) URL the egress policy refuses (a loopback address), naming the field', async () => {
    const fields = await refusal(withTemplateData(render('http://127.0.0.1:9/data.json'), 'acct-1', storeWith({}), 5_000));
    assert.ok(fields['page.templateDataUrl'], JSON.stringify(fields));
  });

  it("names a merge part's field, and leaves an existing PDF part alone", async () => {
    const deps = storeWith({ 'uploads/acct-1/a.json': '{"customer":"A"}' });
    const merge: DocumentInput = {
      output: 'PDF',
      parts: [{ document: 'JVBERi0=' }, { page: { htmlTemplate: b64('{{customer}}'), templateDataUrl: `s3://${BUCKET}/uploads/acct-1/a.json` } }, { page: { htmlTemplate: b64('x'), templateDataUrl: `s3://${BUCKET}/uploads/acct-1/b.json` } }],
    };
    const fields = await refusal(withTemplateData(merge, 'acct-1', deps, 10_000));
    assert.deepEqual(Object.keys(fields), ['parts.2.page.templateDataUrl']);
  });

  it('checks a request with an empty stand-in at the edge, and never plans a page whose data by reference was not read', async () => {
    const input = render(`s3://${BUCKET}/uploads/acct-1/report.json`);
    assert.match(JSON.stringify(buildDocumentPlan(withStandInData(input), await templatesFor(input))), /<p>: {1,2}rows<\/p>/);
    assert.throws(() => buildDocumentPlan(input, undefined), /templateDataUrl was not read/);
  });

  it('takes templateDataUrl only with htmlTemplate, never beside templateData, and only as an upload key or a public URL', () => {
    const issues = (page: Record<string, unknown>) => {
      const parsed = v.safeParse(PdfRequestSchema, { page });
      return parsed.success ? [] : parsed.issues.map((issue) => `${v.getDotPath(issue)}: ${issue.message}`);
    };
    const url = `s3://${BUCKET}/uploads/acct-1/report.json`;
    assert.deepEqual(issues({ htmlTemplate: b64('x'), templateDataUrl: url }), []);
    assert.deepEqual(issues({ htmlTemplate: b64('x'), templateDataUrl: 'https://data.example.com/report.json' }), []);
    assert.deepEqual(issues({ html: b64('x'), templateDataUrl: url }), ['page.templateDataUrl: Only used together with page.htmlTemplate']);
    assert.deepEqual(issues({ htmlTemplate: b64('x'), templateData: {}, templateDataUrl: url }), ['page.templateDataUrl: Give page.templateData or page.templateDataUrl, not both']);
    assert.equal(issues({ htmlTemplate: b64('x'), templateDataUrl: 'ftp://data.example.com/x' }).length, 1);
    assert.equal(issues({ htmlTemplate: b64('x'), templateDataUrl: 's3://Bad_Bucket/x' }).length, 1);
  });
});
