import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PDFDocument, StandardFonts } from '@cantoo/pdf-lib';
import { ValidationError } from '../../../lib/errors.js';
import { finishPdf } from '../../../lib/finishing/finish-pdf.js';
import type { FormPlan } from '../../../lib/finishing/finishing-plan.js';
import { formStep } from '../../../lib/finishing/form.js';
import { applicationForm } from '../../helpers/acroform.js';
import { pdftotext, qpdf, qpdfJson } from '../../helpers/pdf-tools.js';

type QpdfField = { fullname: string; value: unknown; pageposfrom1: number };

/** The AcroForm as qpdf reads it: whether there is one, and each field's full name and /V. */
function acroform(pdf: Uint8Array): { hasacroform: boolean; fields: QpdfField[] } {
  return (qpdfJson(pdf, ['--json-key=acroform']) as { acroform: { hasacroform: boolean; fields: QpdfField[] } }).acroform;
}

const valueOf = (pdf: Uint8Array, name: string) => acroform(pdf).fields.find((field) => field.fullname === name)?.value;

const FIELDS = {
  'applicant.name': 'Jane Doe',
  'applicant.city': '東京都千代田区',
  agree: true,
  plan: 'premium',
  country: 'Japan',
  languages: ['en', 'ja'],
};

const fill = async (plan: FormPlan, input?: Uint8Array) => finishPdf(input ?? (await applicationForm()), { form: formStep(plan) });

/** The ValidationError `work` fails with. */
async function refusal(work: Promise<unknown>): Promise<Record<string, string>> {
  try {
    await work;
  } catch (error) {
    assert.ok(error instanceof ValidationError, String(error));
    return error.fields;
  }
  assert.fail('no ValidationError');
}

describe('formStep', () => {
  it('fills text, check box, radio, combo and multiple-choice fields: qpdf reads the values back, CJK included', async () => {
    // Act
    const out = await fill({ fields: FIELDS, flatten: 'none' });

    // Assess
    assert.equal(qpdf(out, ['--check']).status, 0);
    assert.equal(valueOf(out, 'applicant.name'), 'u:Jane Doe');
    assert.equal(valueOf(out, 'applicant.city'), 'u:東京都千代田区');
    assert.equal(valueOf(out, 'agree'), '/Yes');
    assert.equal(valueOf(out, 'country'), 'u:Japan');
    assert.deepEqual(valueOf(out, 'languages'), ['u:en', 'u:ja']);
    // pdf-lib's radio groups export their options by index, named in the parent's /Opt: premium is the second,
    // and its widget (the second) is the one switched on.
    const radios = acroform(out).fields.filter((field) => field.fullname === 'plan') as Array<QpdfField & { parent: string; annotation: { appearancestate: string } }>;
    assert.deepEqual(radios.map((radio) => radio.annotation.appearancestate), ['/Off', '/1']);
    const objects = (qpdfJson(out, ['--json-key=qpdf']) as { qpdf: [unknown, Record<string, { value: Record<string, unknown> }>] }).qpdf[1];
    assert.deepEqual(objects[`obj:${radios[0]?.parent}`]?.value['/Opt'], ['u:basic', 'u:premium']);
  });

  it('flattens the filled form: no field remains, the values are page text (CJK in an embedded font)', async () => {
    // Act
    const out = await fill({ fields: FIELDS, flatten: 'fields' });

    // Assess
    assert.equal(qpdf(out, ['--check']).status, 0);
    const form = acroform(out);
    assert.equal(form.hasacroform, false);
    assert.deepEqual(form.fields, []);
    const text = pdftotext(out).stdout;
    for (const value of ['Jane Doe', '東京都千代田区', 'Japan']) assert.ok(text.includes(value), `${value} in ${text}`);
  });

  it('names each field the form lacks or whose value it cannot take, as pdf.form.fields.<name>', async () => {
    const fields = await refusal(
      fill({
        fields: { 'applicant.nam': 'x', agree: 'yes', plan: 'gold', country: 'Spain', languages: 'en', 'applicant.name': true },
        flatten: 'none',
      }),
    );
    assert.deepEqual(Object.keys(fields).sort(), [
      'pdf.form.fields.agree',
      'pdf.form.fields.applicant.nam',
      'pdf.form.fields.applicant.name',
      'pdf.form.fields.country',
      'pdf.form.fields.plan',
    ]);
    assert.match(fields['pdf.form.fields.applicant.nam'] ?? '', /no field of this name; its fields: applicant\.name, applicant\.city/);
    assert.match(fields['pdf.form.fields.plan'] ?? '', /Not one of the options: basic, premium/);
    assert.match(fields['pdf.form.fields.agree'] ?? '', /true or false/);
    // A multiple-choice list takes one option as a string too.
    await fill({ fields: { languages: 'en' }, flatten: 'none' });
  });

  it('refuses a value no font of the service can draw, naming the field', async () => {
    const fields = await refusal(fill({ fields: { 'applicant.name': 'مرحبا' }, flatten: 'none' }));
    assert.match(fields['pdf.form.fields.applicant.name'] ?? '', /No font/);
  });

  it('refuses pdf.form on a document without an AcroForm, naming pdf.form, and flattens such a document without complaint', async () => {
    const doc = await PDFDocument.create();
    doc.addPage().drawText('<form><input name="a"></form> printed', { font: await doc.embedFont(StandardFonts.Helvetica) });
    const plain = await doc.save();
    assert.deepEqual(Object.keys(await refusal(fill({ fields: {}, flatten: 'none' }, plain))), ['pdf.form']);
    const flattened = await fill({ flatten: 'all' }, plain);
    assert.match(pdftotext(flattened).stdout, /printed/);
  });
});
