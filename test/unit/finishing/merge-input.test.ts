import { unboundedBudget } from '../../../lib/budget/document-budget.js';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PDFDocument } from '@cantoo/pdf-lib';
import { NotFoundError, ValidationError } from '../../../lib/errors.js';
import { mergeInput, mergeUnits } from '../../../lib/plan/merge-input.js';
import { finishPdf } from '../../../lib/finishing/pipeline/finish-pdf.js';
import { protectStep } from '../../../lib/finishing/steps/protect/protect.js';
import { RENDER_DEFAULTS } from '../../../lib/schemas/render-defaults.js';
import type { MergeRequestOutput } from '../../../lib/schemas/merge-requests.js';
import type { Template } from '../../../lib/templates/template-store.js';
import { deepNestingPdf, kidsLoopPdf, manyPagesPdf, objectStreamBombPdf, pageSizePdf } from '../../helpers/hostile-pdfs.js';

const onePage = async () => {
  const doc = await PDFDocument.create();
  doc.addPage();
  return Buffer.from(await doc.save());
};
const noTemplates = async (): Promise<Template> => {
  throw new NotFoundError('Template not found');
};
const fieldsOf = async (parts: MergeRequestOutput['parts']) => {
  try {
    await mergeInput({ parts, pdf: null }, noTemplates);
    return undefined;
  } catch (error) {
    assert.ok(error instanceof ValidationError, String(error));
    return error.fields;
  }
};

describe('mergeInput', () => {
  it('refuses hostile PDFs naming the part, before copying anything: nesting, a bomb, a loop, too many or too large pages', async () => {
    const document = (bytes: Buffer) => ({ document: bytes.toString('base64') });
    const fields = await Promise.all(
      [deepNestingPdf(5_000), objectStreamBombPdf(200_000_000), kidsLoopPdf(), manyPagesPdf(20_000), pageSizePdf(14_400, 200 * 72 + 1)].map((bytes) =>
        fieldsOf([{ page: { html: 'PHA+eDwvcD4=' } }, document(bytes)]),
      ),
    );
    for (const answer of fields) assert.deepEqual(Object.keys(answer ?? {}), ['parts.1.document']);
  });

  it('refuses the document that takes the merge past 5,000 pages of documents together', async () => {
    const part = { document: manyPagesPdf(2_000).toString('base64') };
    assert.equal(await fieldsOf([part, part]), undefined);
    assert.deepEqual(await fieldsOf([part, part, part]), { 'parts.2.document': 'The documents of a merge must have at most 5000 pages together; this one makes 6000' });
  });

  it('refuses an existing PDF that does not parse or is encrypted, naming the part', async () => {
    // Prepare
    const encrypted = Buffer.from(await finishPdf(await onePage(), { protect: protectStep({ userPassword: 'secret', permissions: RENDER_DEFAULTS.protectionPermissions }) }, unboundedBudget()));
    const page = { page: { html: 'PHA+eDwvcD4=' } };

    // Act / Assess
    assert.deepEqual(await fieldsOf([page, { document: Buffer.from('%PDF-1.7 junk').toString('base64') }]), { 'parts.1.document': 'Is not a readable PDF' });
    assert.deepEqual(await fieldsOf([page, page, { document: encrypted.toString('base64') }]), { 'parts.2.document': 'Must not be encrypted: remove its password first' });
    assert.equal(await fieldsOf([{ document: (await onePage()).toString('base64') }]), undefined);
  });

  it('answers 404 for a template the account does not have', async () => {
    await assert.rejects(mergeInput({ parts: [{ templateId: 'tpl_missing' }], pdf: null }, noTemplates), NotFoundError);
  });

  it('refuses a template part whose template sets what applies to the merged file, unless the part clears it', async () => {
    // Prepare: templates made to be rendered alone, archived or encrypted.
    const template = (id: string, pdf: Record<string, unknown>): Template => ({
      id,
      accountId: 'acct',
      name: id,
      output: 'PDF',
      variables: { page: { html: 'PHA+eDwvcD4=' }, pdf },
      createdAt: '2026-01-01T00:00:00Z',
      updatedAt: '2026-01-01T00:00:00Z',
    });
    const templates = [
      template('tpl_archived', { pdfa: 'PDF/A-3b', metadata: { title: 'Statement' }, watermark: { text: 'COPY' } }),
      template('tpl_encrypted', { protection: { userPassword: 'secret' } }),
    ];
    const load = async (id: string) => templates.find((t) => t.id === id) ?? noTemplates();

    // Act
    const refused = mergeInput({ parts: [{ page: { html: 'PHA+eDwvcD4=' } }, { templateId: 'tpl_archived' }, { templateId: 'tpl_encrypted' }], pdf: null }, load);
    const cleared = await mergeInput({ parts: [{ templateId: 'tpl_archived', pdf: { pdfa: null, metadata: null } }], pdf: null }, load);

    // Assess: the first part at fault is named (its watermark stays its own); the password is in no message.
    await assert.rejects(refused, (error: unknown) => {
      assert.ok(error instanceof ValidationError);
      assert.deepEqual(Object.keys(error.fields), ['parts.1.pdf.metadata', 'parts.1.pdf.pdfa']);
      return true;
    });
    await assert.rejects(mergeInput({ parts: [{ templateId: 'tpl_encrypted' }], pdf: null }, load), (error: unknown) => {
      assert.ok(error instanceof ValidationError);
      assert.deepEqual(Object.keys(error.fields), ['parts.0.pdf.protection']);
      assert.ok(!JSON.stringify(error.fields).includes('secret'));
      return true;
    });
    const [part] = cleared.parts;
    assert.ok(part && 'page' in part);
    assert.equal(part.pdf?.pdfa, null);
    assert.deepEqual(part.pdf?.watermark, { text: 'COPY' });
  });

  it('counts one unit per part that renders, none for an existing PDF', async () => {
    // Act
    const input = await mergeInput({ parts: [{ page: { html: 'PHA+eDwvcD4=' } }, { document: (await onePage()).toString('base64') }, { page: { url: 'https://example.com' } }], pdf: null }, noTemplates);

    // Assess
    assert.equal(mergeUnits(input), 2);
    assert.equal(mergeUnits({ output: 'PDF', parts: [{ document: 'x' }] }), 0);
  });
});
