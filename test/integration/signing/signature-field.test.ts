/**
 * The signature field the sign step adds to a caller's PDF: named so that it
 * is no other field's name, and added to forms whose field tree is safe to
 * walk only (each node read once, within the document's budget).
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { PDFDocument, PDFName, StandardFonts } from '@cantoo/pdf-lib';
import { documentBudget, unboundedBudget } from '../../../lib/budget/document-budget.js';
import { InputPdfError } from '../../../lib/pdf/errors.js';
import { finishPdf } from '../../../lib/finishing/pipeline/finish-pdf.js';
import { signStep } from '../../../lib/finishing/steps/sign/sign.js';
import { loadOrCreateDevPki, type DevPki } from '../../../lib/signing/dev-pki.js';
import { hasSignatures } from '../../../lib/signing/pdf-signature.js';
import { signerRegistry, type SignerRegistry } from '../../../lib/signing/signers.js';
import { sharedKidsForm } from '../../helpers/field-trees.js';
import { qpdfJson } from '../../helpers/pdf-tools.js';
import { tempDir } from '../../helpers/temp-dir.js';

const noText = async (): Promise<Uint8Array> => {
  throw new Error('no text is drawn in these tests');
};

function devRegistry(pki: DevPki): SignerRegistry {
  return signerRegistry({ signers: { default: { kind: 'local', folder: pki.folder } } }, {
    kms: () => assert.fail('no KMS'),
    ssm: () => assert.fail('no SSM'),
    s3: () => assert.fail('no S3'),
    secrets: () => assert.fail('no Secrets Manager'),
  });
}

/** The full names of the file's fields, as qpdf reads them. */
const fieldNames = (pdf: Uint8Array) =>
  (qpdfJson(pdf, ['--json-key=acroform']) as { acroform: { fields: Array<{ fullname: string }> } }).acroform.fields.map((field) => field.fullname);

describe('the signature field', () => {
  let signers: SignerRegistry;
  before(async () => {
    signers = devRegistry(await loadOrCreateDevPki(tempDir('signature-field-')));
  });
  const sign = (pdf: Uint8Array, budget = unboundedBudget()) =>
    finishPdf(pdf, { sign: signStep({ signer: 'default', level: 'B-B' }, signers, noText, () => new Date()) }, budget);

  it('is named so that no field of the form has its name (a form with a field called Signature2)', async () => {
    // Prepare: one field, named as the old count (fields + 1) would have named the signature.
    const doc = await PDFDocument.create();
    const page = doc.addPage([300, 300]);
    page.drawText('Contract', { font: await doc.embedFont(StandardFonts.Helvetica), x: 20, y: 250 });
    doc.getForm().createTextField('Signature2').addToPage(page, { x: 20, y: 20, width: 100, height: 20 });
    const input = await doc.save();

    // Act
    const signed = await sign(input);

    // Assess
    const names = fieldNames(signed);
    assert.equal(names.length, 2);
    assert.equal(new Set(names).size, 2, `${names.join(', ')}: each name once`);
    assert.ok(names.includes('Signature2'), 'the caller\'s field keeps its name');
  });

  it("refuses a form whose fields share their kids as the document's problem, having read each node once", async () => {
    // Prepare: 16 levels, 65,536 paths through 17 fields; the budget's fields would not cover the paths.
    const input = await sharedKidsForm(16);
    const budget = documentBudget({ at: Date.now() + 60_000, budgetMs: 60_000, totals: { fields: 100 } });

    // Act, Assess
    await assert.rejects(sign(input, budget), (error: unknown) => error instanceof InputPdfError && /two parents/.test(error.message));
    assert.ok(budget.left('fields') >= 100 - 20, `${100 - budget.left('fields')} fields read`);
  });

  it('finds an earlier signature under a field tree, each node read once', async () => {
    // Prepare: a signed signature field three levels down a tree of 4 fields (its type inherited from its parent).
    const doc = await PDFDocument.create();
    doc.addPage([300, 300]);
    const { context } = doc;
    const value = context.register(context.obj({ Type: 'Sig' }));
    const widget = context.register(context.obj({ T: 'approval', V: value, Subtype: 'Widget', Rect: [0, 0, 0, 0] }));
    const parent = context.register(context.obj({ T: 'signatures', FT: 'Sig', Kids: [widget] }));
    const top = context.register(context.obj({ T: 'top', Kids: [parent] }));
    doc.catalog.set(PDFName.of('AcroForm'), context.obj({ Fields: [top] }));
    const budget = documentBudget({ at: Date.now() + 60_000, budgetMs: 60_000, totals: { fields: 3 } });

    // Act, Assess
    assert.equal(hasSignatures(doc, budget), true);
    assert.equal(budget.left('fields'), 0);
  });
});
