import { OptionError } from '../../../pdf/errors.js';
import {
  PDFArray,
  PDFButton,
  PDFCheckBox,
  PDFDict,
  PDFDropdown,
  PDFName,
  PDFNumber,
  PDFOptionList,
  PDFRadioGroup,
  PDFRef,
  PDFStream,
  PDFTextField,
  type PDFDocument,
  type PDFField,
  type PDFFont,
  type PDFObject,
  type PDFWidgetAnnotation,
  type PDFPage,
} from '@cantoo/pdf-lib';
import type { DocumentBudget } from '../../../budget/document-budget.js';
import { dropUnreachable } from '../../objects/document-objects.js';
import { fieldTreeProblem } from '../../../pdf/field-tree.js';
import type { DocumentEdit } from '../../pipeline/step-types.js';
import type { FormPlan, FormValue } from '../../pipeline/finishing-plan.js';
import { malformedInput } from '../../pipeline/malformed-input.js';
import { isolatePageContent } from '../stamp/watermark.js';

/** The field names a refusal lists at most, to help the caller find the right one. */
const NAMES_SHOWN = 20;


/**
 * The `form` step: fills the document's AcroForm fields with the plan's
 * values (appearances drawn in a font that has the value's glyphs), then
 * flattens the fields (`pdf.form.flatten`) or the fields and every annotation
 * but links (`pdf.flatten`) into the page content. What the form cannot take
 * is a 400 naming `pdf.form.fields.<name>`: only the document knows its
 * fields, so it is known here.
 */
export function formStep(plan: FormPlan): DocumentEdit {
  return { edit: (document, budget) => fillAndFlatten(document, plan, budget) };
}

async function fillAndFlatten(document: PDFDocument, plan: FormPlan, budget: DocumentBudget): Promise<void> {
  try {
    if (plan.fields) await fill(document, plan.fields, budget);
    if (plan.flatten !== 'none') flatten(document, plan.flatten, budget);
  } catch (error) {
    // What pdf-lib throws on a caller's malformed form is the document's problem, not the service's.
    throw malformedInput(error, plan.fields ? 'The form could not be filled' : 'The document could not be flattened');
  }
}

/** Whether the document has an AcroForm with at least one field (getForm() would make an empty one). */
function hasForm(document: PDFDocument): boolean {
  const acroForm = document.catalog.lookup(PDFName.of('AcroForm'));
  if (!(acroForm instanceof PDFDict)) return false;
  const fields = acroForm.lookup(PDFName.of('Fields'));
  return fields instanceof PDFArray && fields.size() > 0;
}

async function fill(document: PDFDocument, values: Record<string, FormValue>, budget: DocumentBudget): Promise<void> {
  if (!hasForm(document)) {
    throw new OptionError({
      form: 'The document has no form fields (AcroForm) to fill; a form in the page\'s HTML is printed as page content, not as PDF form fields',
    });
  }
  const bad = fieldTreeProblem(document, budget);
  if (bad) throw new OptionError({ form: bad });
  const form = document.getForm();
  // One walk of the form, one lookup per value (pdf-lib's getFieldMaybe walks every field for each name).
  const fields = form.getFields();
  const byName = new Map<string, PDFField>();
  for (const field of fields) {
    budget.check();
    const name = field.getName();
    if (!byName.has(name)) byName.set(name, field);
  }
  const problems: Record<string, string> = {};
  const toDraw: Array<{ field: PDFTextField | PDFDropdown | PDFOptionList; text: string; name: string }> = [];
  for (const [name, value] of Object.entries(values)) {
    budget.check();
    const field = byName.get(name);
    const problem = field ? setValue(field, value) : unknownField(byName);
    if (problem) problems[`form.fields.${name}`] = problem;
    else if (field instanceof PDFTextField || field instanceof PDFDropdown || field instanceof PDFOptionList) {
      toDraw.push({ field, name, text: typeof value === 'string' ? value : Array.isArray(value) ? value.join('') : '' });
    }
  }
  if (Object.keys(problems).length > 0) throw new OptionError(problems);
  // The font engine and its data load with the first fill, not with every render that finishes.
  const { formFonts, MissingGlyphError, codePointName } = await import('./form-fonts.js');
  const { dropdownAppearance, textFieldAppearance } = await import('./field-text-layout.js');
  const fonts = formFonts(document);
  const faces = new Map<PDFDict, Set<PDFFont>>();
  const used = (widget: PDFWidgetAnnotation, shown: Set<PDFFont>) => faces.set(widget.dict, shown);
  const textAppearance = textFieldAppearance(budget, fonts, used);
  const choiceAppearance = dropdownAppearance(budget, fonts, used);
  for (const { field, text, name } of toDraw) {
    budget.check();
    // A list shows all its options, a text field or a combo box its value.
    const drawn = field instanceof PDFOptionList ? field.getOptions().join('') : text;
    try {
      await fonts.prepare(drawn);
    } catch (error) {
      if (!(error instanceof MissingGlyphError)) throw error;
      throw new OptionError({
        [`form.fields.${name}`]: `No font of the service has ${codePointName(error.codePoint)} (${JSON.stringify(String.fromCodePoint(error.codePoint))}), so this value cannot be drawn; the service's fonts cover the scripts in current use, but not private-use characters, and a form field shows no colour emoji`,
      });
    }
    const { font } = fonts.primary(drawn);
    if (field instanceof PDFTextField) field.updateAppearances(font, textAppearance);
    else if (field instanceof PDFDropdown) field.updateAppearances(font, choiceAppearance);
    // A list shows its options in one face: pdf-lib draws them, shaped but not reordered.
    else field.updateAppearances(font);
    for (const widget of field.acroField.getWidgets()) addFonts(widget, faces.get(widget.dict));
  }
  // Check boxes and radio buttons show their own on and off appearances; drawn only where the form lacks them
  // (no font: a text field left alone keeps its appearance, so no unembedded font joins a PDF/A).
  for (const field of fields) {
    budget.check();
    if ((field instanceof PDFCheckBox || field instanceof PDFRadioGroup) && field.needsAppearancesUpdate()) field.updateAppearances();
  }
}

/**
 * Puts every face an appearance shows in its resources: pdf-lib gives a
 * field's appearance the resources of the one font it was asked to draw in,
 * and a value mixing scripts is drawn in several.
 */
function addFonts(widget: PDFWidgetAnnotation, shown: Set<PDFFont> | undefined): void {
  if (!shown) return;
  const { context } = widget.dict;
  const normal = widget.getNormalAppearance();
  const stream = normal instanceof PDFRef ? context.lookup(normal) : normal;
  if (!(stream instanceof PDFStream)) return;
  let resources = stream.dict.lookup(PDFName.of('Resources'));
  if (!(resources instanceof PDFDict)) stream.dict.set(PDFName.of('Resources'), (resources = context.obj({})));
  let fontDict = (resources as PDFDict).lookup(PDFName.of('Font'));
  if (!(fontDict instanceof PDFDict)) (resources as PDFDict).set(PDFName.of('Font'), (fontDict = context.obj({})));
  for (const font of shown) (fontDict as PDFDict).set(PDFName.of(font.name), font.ref);
}

/** Why a name is not one of the form's: its fields listed (the first of them), to help the caller find the right one. */
function unknownField(byName: ReadonlyMap<string, PDFField>): string {
  const names = [...byName.keys()];
  const shown = names.slice(0, NAMES_SHOWN).join(', ');
  return `The form has no field of this name; its fields: ${shown}${names.length > NAMES_SHOWN ? `, … (${names.length} in all)` : ''}`;
}

/** Sets `value` on `field`, or answers why the field cannot take it. */
function setValue(field: PDFField, value: FormValue): string | undefined {
  if (field instanceof PDFTextField) {
    if (typeof value !== 'string') return 'A text field takes a string';
    const max = field.getMaxLength();
    if (max !== undefined && [...value].length > max) return `This field takes at most ${max} characters`;
    field.setText(value);
    return undefined;
  }
  if (field instanceof PDFCheckBox) {
    if (typeof value !== 'boolean') return 'A check box takes true or false';
    if (value) field.check();
    else field.uncheck();
    return undefined;
  }
  if (field instanceof PDFRadioGroup) {
    const options = field.getOptions();
    if (typeof value !== 'string') return `A radio group takes one of its options as a string: ${options.join(', ')}`;
    if (!options.includes(value)) return `Not one of the options: ${options.join(', ')}`;
    field.select(value);
    return undefined;
  }
  if (field instanceof PDFDropdown || field instanceof PDFOptionList) {
    const options = field.getOptions();
    const multiple = field.isMultiselect();
    if (typeof value === 'boolean' || (Array.isArray(value) && !multiple)) return `This list takes one of its options as a string: ${options.join(', ')}`;
    const chosen = typeof value === 'string' ? [value] : value;
    const editable = field instanceof PDFDropdown && field.isEditable();
    const unknown = chosen.filter((option) => !options.includes(option));
    if (unknown.length > 0 && !(editable && chosen.length === 1)) return `Not among the options (${options.join(', ')}): ${unknown.join(', ')}`;
    field.select(chosen);
    return undefined;
  }
  if (field instanceof PDFButton) return 'A push button holds no value';
  return 'This field cannot be filled (a signature field is signed, not filled)';
}

/** Annotation flags (ISO 32000-1, 12.5.3): Hidden and NoView annotations are not shown, so they are dropped, not drawn. */
const HIDDEN = 1 << 1;
const NO_VIEW = 1 << 5;

/**
 * Draws each widget's (with `all`, each annotation's) normal appearance into
 * its page and removes it; links stay (they draw nothing and are the
 * document's navigation), popups go with their parents. The AcroForm goes:
 * no field remains.
 */
function flatten(document: PDFDocument, scope: 'fields' | 'all', budget: DocumentBudget): void {
  const { context } = document;
  for (const page of document.getPages()) {
    budget.check();
    const annots = page.node.lookup(PDFName.of('Annots'));
    if (!(annots instanceof PDFArray)) continue;
    let isolated = false;
    // References and annotations written inline in /Annots alike (links and notes often are): what is kept stays as it was.
    const kept: PDFObject[] = [];
    for (let i = 0; i < annots.size(); i += 1) {
      const ref = annots.get(i);
      const annot = context.lookup(ref);
      if (!(annot instanceof PDFDict)) continue;
      const subtype = annot.lookup(PDFName.of('Subtype'));
      const name = subtype instanceof PDFName ? subtype.decodeText() : '';
      if (name === 'Widget') budget.spend('fields', 1);
      else budget.check();
      const flattens = name === 'Widget' || (scope === 'all' && name !== 'Link');
      if (!flattens) {
        kept.push(ref);
        continue;
      }
      const appearance = normalAppearance(document, annot);
      const flags = annot.lookup(PDFName.of('F'));
      const shown = !(flags instanceof PDFNumber && (flags.asNumber() & (HIDDEN | NO_VIEW)) !== 0);
      if (appearance && shown && name !== 'Popup') {
        if (!isolated) isolatePageContent(page);
        isolated = true;
        drawAppearance(page, annot, appearance);
      }
    }
    page.node.set(PDFName.of('Annots'), context.obj(kept));
  }
  document.catalog.delete(PDFName.of('AcroForm'));
  dropUnreachable(document, { budget });
}

/** The annotation's normal appearance stream: /AP /N, or its /AS state when /N holds states. */
function normalAppearance(document: PDFDocument, annot: PDFDict): { ref: PDFRef; stream: PDFStream } | undefined {
  const ap = annot.lookup(PDFName.of('AP'));
  if (!(ap instanceof PDFDict)) return undefined;
  let normal = ap.get(PDFName.of('N'));
  const resolved = normal instanceof PDFRef ? document.context.lookup(normal) : normal;
  if (resolved instanceof PDFDict && !(resolved instanceof PDFStream)) {
    const state = annot.lookup(PDFName.of('AS'));
    normal = state instanceof PDFName ? resolved.get(state) : undefined;
  }
  if (!(normal instanceof PDFRef)) return undefined;
  const stream = document.context.lookup(normal);
  return stream instanceof PDFStream ? { ref: normal, stream } : undefined;
}

/** A number as PDF content writes it: no exponent. */
const decimal = (n: number) => (Math.abs(n) < 1e-6 ? '0' : n.toFixed(6).replace(/\.?0+$/, ''));

const numbersOf = (array: unknown, fallback: number[]): number[] => {
  if (!(array instanceof PDFArray)) return fallback;
  const numbers = array.asArray().map((item) => (item instanceof PDFNumber ? item.asNumber() : NaN));
  return numbers.length === fallback.length && numbers.every(Number.isFinite) ? numbers : fallback;
};

/**
 * Draws the appearance where the annotation is, as a viewer does
 * (ISO 32000-1, 12.5.5): the form's bounding box, transformed by its
 * matrix, is fitted to the annotation's rectangle.
 */
function drawAppearance(page: PDFPage, annot: PDFDict, appearance: { ref: PDFRef; stream: PDFStream }): void {
  const [rx1, ry1, rx2, ry2] = numbersOf(annot.lookup(PDFName.of('Rect')), [0, 0, 0, 0]) as [number, number, number, number];
  const [bx1, by1, bx2, by2] = numbersOf(appearance.stream.dict.lookup(PDFName.of('BBox')), [0, 0, 0, 0]) as [number, number, number, number];
  const [a, b, c, d, e, f] = numbersOf(appearance.stream.dict.lookup(PDFName.of('Matrix')), [1, 0, 0, 1, 0, 0]) as [number, number, number, number, number, number];
  const corners = [
    [bx1, by1],
    [bx2, by1],
    [bx1, by2],
    [bx2, by2],
  ].map(([x, y]) => [a * (x as number) + c * (y as number) + e, b * (x as number) + d * (y as number) + f] as const);
  const xs = corners.map(([x]) => x);
  const ys = corners.map(([, y]) => y);
  const [minX, maxX, minY, maxY] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  if (maxX - minX <= 0 || maxY - minY <= 0) return;
  const sx = (Math.max(rx1, rx2) - Math.min(rx1, rx2)) / (maxX - minX);
  const sy = (Math.max(ry1, ry2) - Math.min(ry1, ry2)) / (maxY - minY);
  const key = page.node.newXObject('Flat', appearance.ref);
  const tx = Math.min(rx1, rx2) - minX * sx;
  const ty = Math.min(ry1, ry2) - minY * sy;
  const content = `q ${[sx, 0, 0, sy, tx, ty].map(decimal).join(' ')} cm ${key.asString()} Do Q`;
  const { context } = page.doc;
  page.node.addContentStream(context.register(context.stream(content)));
}
