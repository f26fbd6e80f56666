/**
 * The facts of an existing PDF (`output: "JSON"` of /v1/pdf/process): what a
 * UI needs before it fills or finishes a document. Read from the document as
 * parsed within the input bounds; no content stream is decoded, and the only
 * stream inflated (the XMP packet) is inflated with a ceiling.
 */
import { constants, inflateSync } from 'node:zlib';
import {
  PDFArray,
  PDFCheckBox,
  PDFDict,
  PDFDropdown,
  PDFHexString,
  PDFName,
  PDFNumber,
  PDFOptionList,
  PDFRadioGroup,
  PDFRawStream,
  PDFSignature,
  PDFString,
  PDFTextField,
  type PDFDocument,
  type PDFField,
  type PDFObject,
} from '@cantoo/pdf-lib';
import type { DocumentBudget } from '../../budget/document-budget.js';
import { InputPdfError } from '../../pdf/errors.js';
import { readFieldTree } from '../../pdf/field-tree.js';
import type { ProtectPlan } from '../pipeline/finishing-plan.js';
import { cropBox, pageRotation } from '../../pdf/page-box.js';
import type { InputEncryption } from './pdf-input-bounds.js';

/** Most bytes of an XMP packet read (inflated with this ceiling). */
const MAX_XMP_BYTES = 4 * 1024 * 1024;
/** Most outline entries and attachments listed (the page count is already bounded). */
const MAX_LISTED = 10_000;

/** What an encrypted input allows, in the words `pdf.protection` uses. */
export type PermissionFacts = ProtectPlan['permissions'];

export type OutlineEntry = { title: string; children: OutlineEntry[] };

export type FormFieldFacts = {
  name: string;
  type: 'text' | 'checkbox' | 'radio' | 'dropdown' | 'list' | 'button' | 'signature';
  value: string | boolean | string[] | null;
  options?: string[];
  required: boolean;
  readOnly: boolean;
};

/** The JSON answer of /v1/pdf/process with `output: "JSON"` (its schema: lib/openapi/response-schemas.ts, PdfFacts). */
export type PdfFacts = {
  pdfVersion: string;
  pageCount: number;
  pages: Array<{ number: number; width: number; height: number; rotation: number }>;
  metadata: { info: Record<string, string>; xmp: string | null };
  conformance: { pdfa: { part: number; conformance: string } | null; pdfua: { part: number } | null };
  encryption: (Omit<InputEncryption, 'permissions'> & { permissions: PermissionFacts }) | null;
  /** Embedded files: the document's (page null), then those of file attachment annotations (their page), as pdfdetach lists them. */
  attachments: Array<{ name: string; size: number | null; mimeType: string | null; description: string | null; relationship: string | null; page: number | null }>;
  outline: OutlineEntry[];
  form: { fields: FormFieldFacts[] };
};

const text = (value: PDFObject | undefined): string | null =>
  value instanceof PDFString || value instanceof PDFHexString ? value.decodeText() : value instanceof PDFName ? value.decodeText() : null;

/** The permission bits of an encryption dictionary (ISO 32000-1 Table 22) as booleans; revision 2 prints at full resolution. */
export function permissionFacts(bits: number, revision: number): PermissionFacts {
  const has = (bit: number) => (bits & (1 << (bit - 1))) !== 0;
  return {
    print: !has(3) ? 'none' : revision < 3 || has(12) ? 'highResolution' : 'lowResolution',
    modify: has(4),
    copy: has(5),
    annotate: has(6),
    fillForms: has(9) || has(6),
    accessibility: has(10),
    assemble: revision < 3 ? has(4) : has(11),
  };
}

/**
 * The facts of `doc` (decrypted); `header` is the file's first bytes, `encryption` what its encryption dictionary
 * said. Every loop over the document's pages, annotations, names, outline and fields checks `budget`.
 */
export function pdfFacts(doc: PDFDocument, header: Uint8Array, encryption: InputEncryption | undefined, budget: DocumentBudget): PdfFacts {
  const pages = doc.getPages().map((page, index) => {
    budget.check();
    // Read as readers read them (page-box.ts): pdf-lib's getCropBox throws on a page without a usable /MediaBox.
    const box = cropBox(page);
    return { number: index + 1, width: round(box.width), height: round(box.height), rotation: pageRotation(page) };
  });
  const xmp = xmpPacket(doc);
  return {
    pdfVersion: pdfVersion(doc, header),
    pageCount: pages.length,
    pages,
    metadata: { info: infoEntries(doc), xmp },
    conformance: conformanceClaims(xmp),
    encryption: encryption ? { ...encryption, permissions: permissionFacts(encryption.permissions, encryption.revision) } : null,
    attachments: attachments(doc, budget),
    outline: outline(doc, budget),
    form: { fields: formFields(doc, budget) },
  };
}

const round = (n: number) => Math.round(n * 1000) / 1000;

/** The header's version, or the catalog's /Version when it names a later one (ISO 32000-1 7.7.2). */
function pdfVersion(doc: PDFDocument, header: Uint8Array): string {
  const fromHeader = /%PDF-(\d\.\d)/.exec(Buffer.from(header.subarray(0, 1024)).toString('latin1'))?.[1] ?? '';
  const fromCatalog = doc.catalog.lookup(PDFName.of('Version'));
  const catalog = fromCatalog instanceof PDFName ? fromCatalog.decodeText() : '';
  return /^\d\.\d$/.test(catalog) && catalog > fromHeader ? catalog : fromHeader;
}

function infoEntries(doc: PDFDocument): Record<string, string> {
  const info = doc.context.lookup(doc.context.trailerInfo.Info);
  const entries: Record<string, string> = {};
  if (!(info instanceof PDFDict)) return entries;
  for (const [key, value] of info.entries()) {
    const resolved = text(doc.context.lookup(value));
    if (resolved !== null) entries[key.decodeText()] = resolved;
  }
  return entries;
}

/** The catalog's XMP packet as text, inflated with a ceiling; null when absent or not readable. */
function xmpPacket(doc: PDFDocument): string | null {
  const stream = doc.catalog.lookup(PDFName.of('Metadata'));
  if (!(stream instanceof PDFRawStream)) return null;
  const filter = stream.dict.lookup(PDFName.of('Filter'));
  try {
    if (filter === undefined) return Buffer.from(stream.contents.subarray(0, MAX_XMP_BYTES)).toString('utf8');
    if (filter !== PDFName.of('FlateDecode')) return null;
    return inflateSync(stream.contents, { maxOutputLength: MAX_XMP_BYTES, finishFlush: constants.Z_SYNC_FLUSH }).toString('utf8');
  } catch {
    return null;
  }
}

/** The PDF/A and PDF/UA identification the XMP claims (pdfaid, pdfuaid, as attributes or elements). */
function conformanceClaims(xmp: string | null): PdfFacts['conformance'] {
  const read = (prefix: string, name: string) => {
    const match = new RegExp(`${prefix}:${name}\\s*=\\s*["']([^"']*)["']|<${prefix}:${name}>([^<]*)</${prefix}:${name}>`).exec(xmp ?? '');
    return match ? (match[1] ?? match[2] ?? '').trim() : undefined;
  };
  const part = read('pdfaid', 'part');
  const uaPart = read('pdfuaid', 'part');
  return {
    pdfa: part && /^\d+$/.test(part) ? { part: Number(part), conformance: read('pdfaid', 'conformance') ?? '' } : null,
    pdfua: uaPart && /^\d+$/.test(uaPart) ? { part: Number(uaPart) } : null,
  };
}

/** The leaves of a name tree, walked with a stack of its own, each node once. */
function nameTreeLeaves(doc: PDFDocument, root: PDFObject | undefined, budget: DocumentBudget): Array<[string, PDFObject | undefined]> {
  const leaves: Array<[string, PDFObject | undefined]> = [];
  const seen = new Set<PDFDict>();
  const pending = [doc.context.lookup(root)];
  while (pending.length > 0 && leaves.length < MAX_LISTED) {
    const node = pending.pop();
    budget.check();
    if (!(node instanceof PDFDict) || seen.has(node)) continue;
    seen.add(node);
    const names = node.lookup(PDFName.of('Names'));
    if (names instanceof PDFArray) {
      for (let i = 0; i + 1 < names.size(); i += 2) leaves.push([text(doc.context.lookup(names.get(i))) ?? '', doc.context.lookup(names.get(i + 1))]);
    }
    const kids = node.lookup(PDFName.of('Kids'));
    if (kids instanceof PDFArray) for (const kid of kids.asArray().reverse()) pending.push(doc.context.lookup(kid));
  }
  return leaves;
}

function attachments(doc: PDFDocument, budget: DocumentBudget): PdfFacts['attachments'] {
  const listed: PdfFacts['attachments'] = [];
  const names = doc.catalog.lookup(PDFName.of('Names'));
  if (names instanceof PDFDict) {
    for (const [key, spec] of nameTreeLeaves(doc, names.get(PDFName.of('EmbeddedFiles')), budget)) listed.push(fileFacts(spec, key, null));
  }
  doc.getPages().forEach((page, index) => {
    const annots = page.node.lookup(PDFName.of('Annots'));
    for (const annot of annots instanceof PDFArray ? annots.asArray() : []) {
      budget.check();
      if (listed.length >= MAX_LISTED) return;
      const dict = doc.context.lookup(annot);
      if (dict instanceof PDFDict && dict.lookup(PDFName.of('Subtype')) === PDFName.of('FileAttachment')) {
        listed.push(fileFacts(dict.lookup(PDFName.of('FS')), '', index + 1));
      }
    }
  });
  return listed;
}

/** A file specification's name (UF, else F, else its key in the name tree), declared size, type, description and relationship. */
function fileFacts(spec: PDFObject | undefined, key: string, page: number | null): PdfFacts['attachments'][number] {
  const dict = spec instanceof PDFDict ? spec : undefined;
  const name = text(dict?.lookup(PDFName.of('UF'))) ?? text(dict?.lookup(PDFName.of('F'))) ?? key;
  const ef = dict?.lookup(PDFName.of('EF'));
  const file = ef instanceof PDFDict ? (ef.lookup(PDFName.of('UF')) ?? ef.lookup(PDFName.of('F'))) : undefined;
  const params = file instanceof PDFRawStream ? file.dict.lookup(PDFName.of('Params')) : undefined;
  const size = params instanceof PDFDict ? params.lookup(PDFName.of('Size')) : undefined;
  const subtype = file instanceof PDFRawStream ? file.dict.lookup(PDFName.of('Subtype')) : undefined;
  return {
    name,
    size: size instanceof PDFNumber ? size.asNumber() : null,
    mimeType: subtype instanceof PDFName ? subtype.decodeText() : null,
    description: text(dict?.lookup(PDFName.of('Desc'))),
    relationship: text(dict?.lookup(PDFName.of('AFRelationship'))),
    page,
  };
}

/** Deepest outline level read (qpdf's bound). */
const MAX_OUTLINE_DEPTH = 50;

/**
 * The outline's titles as a tree, read as qpdf reads it: each sibling chain
 * followed until an item repeats in it, an item's children read on its first
 * visit only and at most 50 levels deep, so a loop ends and every item is
 * listed where a link leads to it; at most MAX_LISTED entries.
 */
function outline(doc: PDFDocument, budget: DocumentBudget): OutlineEntry[] {
  const root = doc.catalog.lookup(PDFName.of('Outlines'));
  const top: OutlineEntry[] = [];
  if (!(root instanceof PDFDict)) return top;
  const visited = new Set<PDFDict>();
  let listed = 0;
  const chain = (first: PDFObject | undefined, depth: number, into: OutlineEntry[]) => {
    const siblings = new Set<PDFDict>();
    let next = first;
    while (listed < MAX_LISTED) {
      budget.check();
      const item = doc.context.lookup(next);
      if (!(item instanceof PDFDict) || siblings.has(item)) return;
      siblings.add(item);
      const entry: OutlineEntry = { title: text(item.lookup(PDFName.of('Title'))) ?? '', children: [] };
      into.push(entry);
      listed++;
      if (depth <= MAX_OUTLINE_DEPTH && !visited.has(item)) {
        visited.add(item);
        // Recursion at most MAX_OUTLINE_DEPTH deep.
        chain(item.get(PDFName.of('First')), depth + 1, entry.children);
      }
      next = item.get(PDFName.of('Next'));
    }
  };
  chain(root.get(PDFName.of('First')), 1, top);
  return top;
}

/**
 * The form's fields as pdf-lib reads them, once its tree is known to be one (field-tree.ts): a tree that loops or
 * lists a node under two parents is refused here as every step refuses it, rather than walked once per path.
 */
function formFields(doc: PDFDocument, budget: DocumentBudget): FormFieldFacts[] {
  if (!(doc.catalog.lookup(PDFName.of('AcroForm')) instanceof PDFDict)) return [];
  const tree = readFieldTree(doc, budget);
  if ('problem' in tree) throw new InputPdfError(tree.problem);
  let fields: PDFField[];
  try {
    fields = doc.getForm().getFields();
  } catch {
    return [];
  }
  return fields.slice(0, MAX_LISTED).map((field) => {
    budget.spend('fields', 1);
    const base = { name: field.getName(), required: field.isRequired(), readOnly: field.isReadOnly() };
    if (field instanceof PDFTextField) return { ...base, type: 'text', value: field.getText() ?? null };
    if (field instanceof PDFCheckBox) return { ...base, type: 'checkbox', value: field.isChecked() };
    if (field instanceof PDFRadioGroup) return { ...base, type: 'radio', value: field.getSelected() ?? null, options: field.getOptions() };
    if (field instanceof PDFDropdown) return { ...base, type: 'dropdown', value: field.getSelected(), options: field.getOptions() };
    if (field instanceof PDFOptionList) return { ...base, type: 'list', value: field.getSelected(), options: field.getOptions() };
    if (field instanceof PDFSignature) return { ...base, type: 'signature', value: null };
    return { ...base, type: 'button', value: null };
  });
}
