import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import fontkit from '@cantoo/fontkit';
import { PDFDocument, StandardFonts } from '@cantoo/pdf-lib';

/**
 * An application form with an AcroForm of every kind of field, made the way
 * authoring tools make them (fields with widgets and appearance streams):
 * text `applicant.name` and `applicant.city`, check box `agree`, radio group
 * `plan` (basic, premium), combo box `country` (France, Japan, Korea) and a
 * multiple-choice list `languages` (en, fr, ja, ko), over printed labels.
 * With `embeddedLabels`, the labels are in an embedded font (Noto Sans JP)
 * rather than Helvetica, which PDF/A would refuse for not being embedded.
 */
export async function applicationForm(options: { embeddedLabels?: boolean } = {}): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  let font;
  if (options.embeddedLabels) {
    doc.registerFontkit(fontkit);
    const pkg = dirname(createRequire(import.meta.url).resolve('@embedpdf/fonts-jp'));
    font = await doc.embedFont(await readFile(join(pkg, '..', 'fonts', 'NotoSansJP-Regular.otf')), { subset: true });
  } else {
    font = await doc.embedFont(StandardFonts.Helvetica);
  }
  const page = doc.addPage([595, 842]);
  const form = doc.getForm();
  const label = (text: string, y: number) => page.drawText(text, { x: 50, y, size: 11, font });
  label('Application form', 800);
  label('Name', 740);
  form.createTextField('applicant.name').addToPage(page, { x: 150, y: 730, width: 300, height: 22 });
  label('City', 700);
  form.createTextField('applicant.city').addToPage(page, { x: 150, y: 690, width: 300, height: 22 });
  label('I agree', 660);
  form.createCheckBox('agree').addToPage(page, { x: 150, y: 655, width: 16, height: 16 });
  label('Plan', 620);
  const plan = form.createRadioGroup('plan');
  plan.addOptionToPage('basic', page, { x: 150, y: 615, width: 16, height: 16 });
  plan.addOptionToPage('premium', page, { x: 200, y: 615, width: 16, height: 16 });
  label('Country', 580);
  const country = form.createDropdown('country');
  country.addOptions(['France', 'Japan', 'Korea']);
  country.addToPage(page, { x: 150, y: 570, width: 150, height: 22 });
  label('Languages', 540);
  const languages = form.createOptionList('languages');
  languages.addOptions(['en', 'fr', 'ja', 'ko']);
  languages.enableMultiselect();
  languages.addToPage(page, { x: 150, y: 470, width: 100, height: 80 });
  return doc.save();
}
