import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PDFDocument } from '@cantoo/pdf-lib';
import { NotFoundError, ValidationError } from '../../../lib/errors.js';
import { mergeInput, mergeUnits } from '../../../lib/plan/merge-input.js';
import { protectStep } from '../../../lib/finishing/protect.js';
import { RENDER_DEFAULTS } from '../../../lib/schemas/render-defaults.js';
import type { MergeRequestOutput } from '../../../lib/schemas/merge-requests.js';
import type { Template } from '../../../lib/templates/template-store.js';

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
  it('refuses an existing PDF that does not parse or is encrypted, naming the part', async () => {
    // Prepare
    const encrypted = Buffer.from(await protectStep({ userPassword: 'secret', permissions: RENDER_DEFAULTS.protectionPermissions })(await onePage()));
    const page = { page: { html: 'PHA+eDwvcD4=' } };

    // Act / Assess
    assert.deepEqual(await fieldsOf([page, { document: Buffer.from('%PDF-1.7 junk').toString('base64') }]), { 'parts.1.document': 'Is not a readable PDF' });
    assert.deepEqual(await fieldsOf([page, page, { document: encrypted.toString('base64') }]), { 'parts.2.document': 'Must not be encrypted: remove its password first' });
    assert.equal(await fieldsOf([{ document: (await onePage()).toString('base64') }]), undefined);
  });

  it('answers 404 for a template the account does not have', async () => {
    await assert.rejects(mergeInput({ parts: [{ templateId: 'tpl_missing' }], pdf: null }, noTemplates), NotFoundError);
  });

  it('counts one unit per part that renders, none for an existing PDF', async () => {
    // Act
    const input = await mergeInput({ parts: [{ page: { html: 'PHA+eDwvcD4=' } }, { document: (await onePage()).toString('base64') }, { page: { url: 'https://example.com' } }], pdf: null }, noTemplates);

    // Assess
    assert.equal(mergeUnits(input), 2);
    assert.equal(mergeUnits({ output: 'PDF', parts: [{ document: 'x' }] }), 0);
  });
});
