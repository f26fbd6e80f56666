import { unboundedBudget } from '../../../lib/budget/document-budget.js';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it, mock } from 'node:test';
import { PDFArray, PDFContentStream, PDFDocument, PDFFont, PDFForm, PDFName, PDFRawStream, PDFTextField, StandardFonts, decodePDFRawStream, PDFDict } from '@cantoo/pdf-lib';
import { OptionError } from '../../../lib/pdf/errors.js';
import { finishPdf } from '../../../lib/finishing/pipeline/finish-pdf.js';
import type { FormPlan } from '../../../lib/finishing/pipeline/finishing-plan.js';
import { textFieldAppearance } from '../../../lib/finishing/steps/form/field-text-layout.js';
import { formFonts } from '../../../lib/finishing/steps/form/form-fonts.js';
import { formStep } from '../../../lib/finishing/steps/form/form.js';
import { applicationForm } from '../../helpers/acroform.js';
import { pageCountOf, pdftotext, qpdf, qpdfJson } from '../../helpers/pdf-tools.js';

/** IRS Form 1040 (2010), from pdf.js's test suite: a real government form (test/fixtures/forms/README.md). */
const F1040 = new URL('../../fixtures/forms/irs-f1040-2010.pdf', import.meta.url);

type QpdfField = { fullname: string; value: unknown; pageposfrom1: number };

/** The AcroForm as qpdf reads it: whether there is one, and each field's full name and /V. */
function acroform(pdf: Uint8Array): { hasacroform: boolean; fields: QpdfField[] } {
  return (qpdfJson(pdf, ['--json-key=acroform']) as { acroform: { hasacroform: boolean; fields: QpdfField[] } }).acroform;
}

/** The subtypes of the first page's annotations, as qpdf reads them. */
function annotationTypes(pdf: Uint8Array): unknown[] {
  const json = qpdfJson(pdf) as { pages: Array<{ object: string }>; qpdf: [unknown, Record<string, { value: Record<string, unknown> }>] };
  const objects = json.qpdf[1];
  const annots = (objects[`obj:${json.pages[0]?.object}`]?.value['/Annots'] ?? []) as string[];
  return annots.map((ref) => objects[`obj:${ref}`]?.value['/Subtype']);
}

/** A one-page document with a multi-line text field `notes` (automatic font size) over most of an A4 page. */
async function notesForm(rect = { x: 50, y: 100, width: 400, height: 600 }): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([595, 842]);
  const field = doc.getForm().createTextField('notes');
  field.enableMultiline();
  field.addToPage(page, rect);
  // Sized to fit the value, as forms' text areas usually are (pdf-lib wrote the size an empty field fits: 500).
  field.setFontSize(0);
  return doc.save({ updateFieldAppearances: false });
}

/** Words, as many as make `length` characters, with a paragraph break now and then. */
function prose(length: number): string {
  const words = ['lorem', 'ipsum', 'dolor', 'sit', 'amet,', 'consectetur', 'adipiscing', 'elit.', 'Sed', 'do', 'eiusmod', 'tempor'];
  let text = '';
  for (let i = 0; text.length < length; i += 1) text += (words[i % words.length] as string) + (i % 97 === 96 ? '\n' : ' ');
  return text.slice(0, length);
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

const fill = async (plan: FormPlan, input?: Uint8Array) => finishPdf(input ?? (await applicationForm()), { form: formStep(plan) }, unboundedBudget());

/** The fields of the OptionError `work` fails with (paths inside the pdf options: the edge puts `pdf.` in front). */
async function refusal(work: Promise<unknown>): Promise<Record<string, string>> {
  try {
    await work;
  } catch (error) {
    assert.ok(error instanceof OptionError, String(error));
    return error.fields;
  }
  assert.fail('no OptionError');
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

  it('names each field the form lacks or whose value it cannot take, as form.fields.<name> inside the pdf options', async () => {
    const fields = await refusal(
      fill({
        fields: { 'applicant.nam': 'x', agree: 'yes', plan: 'gold', country: 'Spain', languages: 'en', 'applicant.name': true },
        flatten: 'none',
      }),
    );
    assert.deepEqual(Object.keys(fields).sort(), [
      'form.fields.agree',
      'form.fields.applicant.nam',
      'form.fields.applicant.name',
      'form.fields.country',
      'form.fields.plan',
    ]);
    assert.match(fields['form.fields.applicant.nam'] ?? '', /no field of this name; its fields: applicant\.name, applicant\.city/);
    assert.match(fields['form.fields.plan'] ?? '', /Not one of the options: basic, premium/);
    assert.match(fields['form.fields.agree'] ?? '', /true or false/);
    // A multiple-choice list takes one option as a string too.
    await fill({ fields: { languages: 'en' }, flatten: 'none' });
  });

  it('refuses a value with a character no font of the service has, naming the field and the character', async () => {
    const fields = await refusal(fill({ fields: { 'applicant.name': 'Jane \uE000 Doe' }, flatten: 'none' }));
    assert.match(fields['form.fields.applicant.name'] ?? '', /No font of the service has U\+E000/);
  });

  it('refuses pdf.form on a document without an AcroForm, naming form, and flattens such a document without complaint', async () => {
    const doc = await PDFDocument.create();
    doc.addPage().drawText('<form><input name="a"></form> printed', { font: await doc.embedFont(StandardFonts.Helvetica) });
    const plain = await doc.save();
    assert.deepEqual(Object.keys(await refusal(fill({ fields: {}, flatten: 'none' }, plain))), ['form']);
    const flattened = await fill({ flatten: 'all' }, plain);
    assert.match(pdftotext(flattened).stdout, /printed/);
  });

  it('pdf.flatten draws every annotation as it shows into the page and removes it, keeps links, drops hidden ones', async () => {
    // Prepare: a page with a square annotation and a hidden one (each an appearance with a word), and a link.
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.Helvetica);
    const page = doc.addPage([400, 400]);
    page.drawText('Body text', { x: 40, y: 360, size: 12, font });
    const { context } = doc;
    const appearance = (word: string) =>
      context.register(
        context.stream(`BT /F1 10 Tf 5 5 Td (${word}) Tj ET`, {
          Type: 'XObject',
          Subtype: 'Form',
          BBox: [0, 0, 100, 20],
          Resources: { Font: { F1: font.ref } },
        }),
      );
    const annot = (fields: Record<string, unknown>) => context.register(context.obj({ Type: 'Annot', ...fields }) as PDFDict);
    const square = annot({ Subtype: 'Square', Rect: [50, 200, 250, 240], F: 4, AP: { N: appearance('REVIEWED') } });
    const hidden = annot({ Subtype: 'Square', Rect: [50, 100, 150, 120], F: 2, AP: { N: appearance('INVISIBLE') } });
    const link = annot({ Subtype: 'Link', Rect: [50, 300, 150, 320], A: { S: 'URI', URI: 'https://example.com/' } });
    page.node.set(PDFName.of('Annots'), context.obj([square, hidden, link]));
    const input = await doc.save();

    // Act
    const out = await fill({ flatten: 'all' }, input);

    // Assess
    assert.equal(qpdf(out, ['--check']).status, 0);
    const text = pdftotext(out).stdout;
    assert.match(text, /Body text/);
    assert.match(text, /REVIEWED/);
    assert.doesNotMatch(text, /INVISIBLE/);
    assert.deepEqual(annotationTypes(input), ['/Square', '/Square', '/Link']);
    assert.deepEqual(annotationTypes(out), ['/Link']);
    // Drawn where the annotation was: the word sits inside its rectangle (x 50–250, y 200–240).
    const box = /<word xMin="([\d.]+)" yMin="([\d.]+)"[^>]*>REVIEWED<\/word>/.exec(pdftotext(out, ['-bbox']).stdout);
    assert.ok(box, 'a bounding box for the word');
    assert.ok(Number(box[1]) >= 50 && Number(box[1]) <= 60, `x ${box[1]}`);
    // pdftotext counts y from the top: 400 - 240 = 160 to 400 - 200 = 200.
    assert.ok(Number(box[2]) >= 160 && Number(box[2]) <= 200, `y ${box[2]}`);
  });

  it('fills and flattens a real government form (IRS 1040, LiveCycle-made): qpdf reads the values, then pdftotext, no field left', async () => {
    // Prepare
    const input = new Uint8Array(readFileSync(F1040));
    const page1 = 'topmostSubform[0].Page1[0]';
    const fields = { [`${page1}.p1-t4[0]`]: 'Jane', [`${page1}.p1-t5[0]`]: 'Smith-北京', [`${page1}.c1_02_0_[0]`]: true };
    assert.equal(valueOf(input, `${page1}.p1-t4[0]`), 'u:', 'the fixture has the field, empty');

    // Act
    const filled = await fill({ fields, flatten: 'none' }, input);
    const flat = await fill({ fields, flatten: 'fields' }, input);

    // Assess
    assert.equal(qpdf(filled, ['--check']).status, 0);
    assert.equal(valueOf(filled, `${page1}.p1-t4[0]`), 'u:Jane');
    assert.equal(valueOf(filled, `${page1}.p1-t5[0]`), 'u:Smith-北京');
    assert.notEqual(valueOf(filled, `${page1}.c1_02_0_[0]`), '/Off');
    assert.equal(acroform(filled).fields.length, 242, 'every other field is still there');
    assert.equal(qpdf(flat, ['--check']).status, 0);
    assert.equal(pageCountOf(flat), 2);
    assert.equal(acroform(flat).hasacroform, false);
    const text = pdftotext(flat).stdout;
    assert.match(text, /U\.S\. Individual Income Tax Return/);
    for (const value of ['Jane', 'Smith-北京']) assert.ok(text.includes(value), value);
  });

  it('refuses a form whose fields loop, naming form, instead of walking it forever', async () => {
    // Prepare: a field whose kid lists the field again.
    const doc = await PDFDocument.load(await applicationForm());
    const { context } = doc;
    const parentRef = context.nextRef();
    const kidRef = context.register(context.obj({ T: 'kid', Parent: parentRef, Kids: [parentRef] }));
    context.assign(parentRef, context.obj({ T: 'loop', Kids: [kidRef] }));
    (doc.catalog.lookup(PDFName.of('AcroForm')) as PDFDict).lookup(PDFName.of('Fields'), PDFArray).push(parentRef);
    const input = await doc.save();

    // Act, Assess
    const fields = await refusal(fill({ fields: { 'applicant.name': 'x' }, flatten: 'none' }, input));
    assert.match(fields['form'] ?? '', /loop/);
  });

  it('fills a multi-line field with the 10,000 characters the schema allows, measuring the text a bounded number of times', async () => {
    // Prepare: every measurement and encoding of text by the font counted; pdf-lib's own line splitting
    // measures ever shorter prefixes of the rest of the value for every line (millions of characters here).
    const input = await notesForm();
    const text = prose(10_000);
    const bound = 20 * text.length;
    let measured = 0;
    const count = (text: string) => {
      measured += text.length;
      if (measured > bound) throw new Error(`measured more than ${bound} characters`);
    };
    const width = PDFFont.prototype.widthOfTextAtSize;
    const encode = PDFFont.prototype.encodeText;
    const widthMock = mock.method(PDFFont.prototype, 'widthOfTextAtSize', function (this: PDFFont, text: string, size: number) {
      count(text);
      return width.call(this, text, size);
    });
    const encodeMock = mock.method(PDFFont.prototype, 'encodeText', function (this: PDFFont, text: string) {
      count(text);
      return encode.call(this, text);
    });

    // Act
    let out: Uint8Array;
    try {
      out = await fill({ fields: { notes: text }, flatten: 'fields' }, input);
    } finally {
      widthMock.mock.restore();
      encodeMock.mock.restore();
    }

    // Assess: filled, drawn, and every word the text starts and ends with is on the page, inside the field.
    assert.ok(measured <= bound);
    assert.equal(qpdf(out, ['--check']).status, 0);
    const words = [...pdftotext(out, ['-bbox']).stdout.matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g)];
    assert.equal(words.map((word) => word[5]).join(' '), text.split(/\s+/).filter(Boolean).join(' '));
    for (const [, x1, y1, x2, y2] of words) {
      // The field's rectangle: x 50–450, y 100–700 from the bottom of an 842-point page (142–742 from its top).
      assert.ok(Number(x1) >= 50 && Number(x2) <= 450 && Number(y1) >= 142 && Number(y2) <= 742, `${x1} ${y1} ${x2} ${y2}`);
    }
  });

  it("lays a multi-line value out as pdf-lib's own layout does: the same font size, lines and positions", async () => {
    // Prepare: two identical fields in one document, one drawn by pdf-lib's provider, one by the step's, in the layer's default face.
    const doc = await PDFDocument.load(await notesForm({ x: 50, y: 400, width: 300, height: 300 }));
    const texts = [prose(700), 'One line', 'Two\nlines  with   spaces\n\nand an empty one', `${'x'.repeat(80)} a word wider than the field`];
    const fonts = formFonts(doc);
    await fonts.prepare(texts.join(''));
    const { font } = fonts.primary(texts.join(''));
    const form = doc.getForm();
    const theirs = form.getTextField('notes');
    const ours = form.createTextField('copy');
    ours.enableMultiline();
    ours.addToPage(doc.getPage(0), { x: 50, y: 50, width: 300, height: 300 });
    const appearance = (field: PDFTextField) => {
      const normal = field.acroField.getWidgets()[0]?.getNormalAppearance();
      const stream = normal ? doc.context.lookup(normal) : undefined;
      if (stream instanceof PDFRawStream) return Buffer.from(decodePDFRawStream(stream).decode()).toString('latin1');
      assert.ok(stream instanceof PDFContentStream);
      return Buffer.from(stream.getUnencodedContents()).toString('latin1');
    };
    // Each line as drawn: its font size, where it starts, how many glyphs (pdf-lib's one Tj a line, the step's one text object).
    const layout = (field: PDFTextField) => {
      const content = appearance(field);
      const size = /([\d.]+) Tf/.exec(content)?.[1];
      const lines = [...content.matchAll(/BT([\s\S]*?)ET/g)].flatMap(([, block]) => {
        const shown = [...(block ?? '').matchAll(/([-\d.]+) ([-\d.]+) Tm\s*<([0-9A-F]*)> Tj/g)];
        if (shown.length === 0) return [];
        const perLine = field === theirs ? shown.map((one) => [one]) : [shown];
        return perLine.map((line) => `${Number(line[0]?.[1]).toFixed(2)},${Number(line[0]?.[2]).toFixed(2)}:${line.reduce((n, one) => n + (one[3] ?? '').length / 4, 0)}`);
      });
      // An empty line draws nothing: pdf-lib shows an empty string there, the step nothing.
      return { size, lines: lines.filter((line) => !line.endsWith(':0')) };
    };
    for (const text of texts) {
      for (const size of [0, 9]) {
        theirs.setText(text);
        ours.setText(text);
        // Each drawing writes the size it chose into the /DA: set again (0 is the automatic size).
        for (const field of [theirs, ours]) field.setFontSize(size);

        // Act
        theirs.updateAppearances(font);
        ours.updateAppearances(font, textFieldAppearance(unboundedBudget(), fonts, () => undefined));

        // Assess (a word wider than the field: pdf-lib put the rest of its paragraph on its line, the step a line of its own).
        if (!text.startsWith('xxx')) assert.deepEqual(layout(ours), layout(theirs), `${size}: ${text.slice(0, 30)}`);
        else if (size === 9) {
          const lines = layout(ours).lines.map((line) => Number(line.split(':')[1]));
          assert.equal(lines[0], 80, 'the wide word on a line of its own, then the rest of its paragraph');
          assert.ok(lines.length > 1);
        }
      }
    }
  });

  it('looks each value up once: a request naming many fields the form lacks walks the form once', async () => {
    // Prepare
    const getFields = mock.method(PDFForm.prototype, 'getFields');
    const unknown = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`missing.${i}`, 'x']));

    // Act
    let fields: Record<string, string>;
    try {
      fields = await refusal(fill({ fields: { ...unknown, 'applicant.name': 'Jane' }, flatten: 'none' }));
    } finally {
      getFields.mock.restore();
    }

    // Assess: every unknown name refused, with the form's fields listed, from one walk of the form.
    assert.equal(Object.keys(fields).length, 50);
    assert.match(fields['form.fields.missing.49'] ?? '', /its fields: applicant\.name, applicant\.city/);
    assert.ok(getFields.mock.callCount() <= 2, `${getFields.mock.callCount()} walks of the form`);
  });

  it('keeps the links and notes written inline in a page\'s /Annots when it flattens the form', async () => {
    // Prepare: the application form's page with a link and a note written inline (not as references) in /Annots.
    const doc = await PDFDocument.load(await applicationForm());
    const { context } = doc;
    const annots = doc.getPage(0).node.lookup(PDFName.of('Annots'), PDFArray);
    annots.push(context.obj({ Type: 'Annot', Subtype: 'Link', Rect: [50, 50, 150, 70], A: { S: 'URI', URI: 'https://example.com/' } }));
    annots.push(context.obj({ Type: 'Annot', Subtype: 'Text', Rect: [200, 50, 220, 70], Contents: 'A note' }));
    const input = await doc.save();

    // Act
    const out = await fill({ fields: { 'applicant.name': 'Jane' }, flatten: 'fields' }, input);

    // Assess: the widgets are drawn and gone, the link and the note stay.
    assert.equal(qpdf(out, ['--check']).status, 0);
    const page = (await PDFDocument.load(out)).getPage(0);
    const kept = page.node.lookup(PDFName.of('Annots'), PDFArray).asArray().map((annot) => String(page.doc.context.lookup(annot, PDFDict).get(PDFName.of('Subtype'))));
    assert.deepEqual(kept, ['/Link', '/Text']);
    assert.match(pdftotext(out).stdout, /Jane/);
  });
});
