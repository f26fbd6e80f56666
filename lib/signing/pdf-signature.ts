/**
 * A PAdES signature in a PDF (ISO 32000-2 §12.8, ETSI EN 319 142-1): the
 * signature field and its widget, the signature dictionary with a
 * `/ByteRange` and a `/Contents` placeholder, the file written once, then the
 * CMS over every byte but the placeholder's hex written into it. The file is
 * not changed after that: the signature covers the whole file.
 */
import {
  PDFArray,
  PDFDict,
  PDFDocument,
  PDFHexString,
  PDFName,
  PDFNumber,
  PDFString,
  ParseSpeeds,
  PDFRef,
} from '@cantoo/pdf-lib';
import { digestOf, signedData, timestampAttribute } from './cms.js';
import type { DocumentBudget } from '../budget/document-budget.js';
import { InputPdfError, OptionError } from '../pdf/errors.js';
import { readFieldTree, type FieldNode } from '../pdf/field-tree.js';
import type { Signer } from './signer.js';

/** Bytes kept for the CMS: the chain, the signature and a timestamp token with the TSA's chain fit in 24 KB with room. */
const CONTENTS_BYTES = 24 * 1024;
const BYTE_RANGE_PLACEHOLDER = '**********';

/** The DocMDP permissions of a certification signature (ISO 32000-2 Table 257: /P 1, 2 or 3). */
export type Certify = 'noChanges' | 'formFilling' | 'annotations';
const DOC_MDP_P: Record<Certify, number> = { noChanges: 1, formFilling: 2, annotations: 3 };

/** What the signature dictionary says and how the signature is made. */
export type SignatureRequest = {
  signer: Signer;
  reason?: string;
  location?: string;
  contactInfo?: string;
  name?: string;
  certify?: Certify;
  /** A timestamp token over the signature value (PAdES B-T): given the value, answers the token's DER. */
  timestamp?: (signatureValue: Uint8Array) => Promise<Uint8Array>;
  /** Draws the visible signature: adds the widget's appearance and answers its page and rectangle; absent → invisible. */
  appearance?: (doc: PDFDocument) => Promise<{ page: number; rect: [number, number, number, number]; normal: PDFRef }>;
  now: Date;
  /** The document's budget (lib/budget/document-budget.ts): the walks of its form spend from it. */
  budget: DocumentBudget;
};

/** PDF date string (D:YYYYMMDDHHmmSSZ). */
const pdfDate = (date: Date) => `D:${date.toISOString().replace(/[-:T]/g, '').slice(0, 14)}Z`;

/**
 * The nodes of `doc`'s field tree, each once (lib/pdf/field-tree.ts:
 * iterative, a visited set, a depth and a node cap, each node counted
 * against the budget); a tree that loops or shares a node is the caller's
 * document that cannot be signed (a 400 naming it), not walked per path.
 */
function fieldNodes(doc: PDFDocument, budget: DocumentBudget): FieldNode[] {
  const tree = readFieldTree(doc, budget);
  if ('problem' in tree) throw new InputPdfError(tree.problem);
  return tree.nodes;
}

/**
 * True when `doc` already carries a signature (a field of type `/Sig`, its
 * own or inherited, with a value): a document someone signed before it came
 * to be signed here.
 */
export function hasSignatures(doc: PDFDocument, budget: DocumentBudget): boolean {
  return fieldNodes(doc, budget).some((node) => node.type === 'Sig' && node.dict.get(PDFName.of('V')) != null);
}

/** The first `Signature<n>` no field of the form is named (the new field is a top-level one: its full name is its /T). */
function freeSignatureName(nodes: FieldNode[]): string {
  const taken = new Set(nodes.map((node) => node.name));
  let n = 1;
  while (taken.has(`Signature${n}`)) n += 1;
  return `Signature${n}`;
}

/**
 * Adds the field, the widget and the signature dictionary with placeholders;
 * answers the document saved. A document that is signed already gets them as
 * an incremental update, so that every byte its signatures cover stays as it
 * was and they stay valid beside the new one (ISO 32000-2 §12.8: a later
 * signature is an approval signature; certifying is for the first only).
 */
async function withPlaceholder(pdf: Uint8Array, request: SignatureRequest): Promise<Uint8Array> {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false, parseSpeed: ParseSpeeds.Fastest });
  const incremental = hasSignatures(doc, request.budget);
  if (incremental && request.certify) {
    throw new OptionError({ 'signature.certify': 'The document is signed already: only its first signature may certify it' });
  }
  const snapshot = incremental ? doc.takeSnapshot() : undefined;
  const { context } = doc;
  const signature = placeholderDictionary(doc, { Type: 'Sig', SubFilter: 'ETSI.CAdES.detached' });
  signature.set(PDFName.of('M'), PDFString.of(pdfDate(request.now)));
  for (const [key, value] of [
    ['Reason', request.reason],
    ['Location', request.location],
    ['ContactInfo', request.contactInfo],
    ['Name', request.name],
  ] as const) {
    if (value) signature.set(PDFName.of(key), PDFHexString.fromText(value));
  }
  const signatureRef = context.register(signature);
  if (request.certify) {
    const reference = context.obj({
      Type: 'SigRef',
      TransformMethod: 'DocMDP',
      TransformParams: context.obj({ Type: 'TransformParams', P: PDFNumber.of(DOC_MDP_P[request.certify]), V: PDFName.of('1.2') }),
    });
    signature.set(PDFName.of('Reference'), context.obj([reference]));
    doc.catalog.set(PDFName.of('Perms'), context.obj({ DocMDP: signatureRef }));
  }

  const visible = request.appearance ? await request.appearance(doc) : undefined;
  const changed = addSignatureField(doc, signatureRef, request.budget, visible);
  if (!snapshot) return doc.save({ updateFieldAppearances: false, useObjectStreams: false, objectsPerTick: Infinity });
  snapshot.markRefForSave(changed.page);
  snapshot.markRefForSave(changed.acroForm ?? (context.trailerInfo.Root as PDFRef));
  const update = await doc.saveIncremental(snapshot, { useObjectStreams: false });
  return Buffer.concat([pdf, update]);
}

/** A signature dictionary (`/Sig` or `/DocTimeStamp`) with the `/ByteRange` and `/Contents` placeholders. */
export function placeholderDictionary(doc: PDFDocument, kind: { Type: 'Sig' | 'DocTimeStamp'; SubFilter: string }): PDFDict {
  const { context } = doc;
  return context.obj({
    Type: kind.Type,
    Filter: 'Adobe.PPKLite',
    SubFilter: kind.SubFilter,
    ByteRange: context.obj([0, PDFName.of(BYTE_RANGE_PLACEHOLDER), PDFName.of(BYTE_RANGE_PLACEHOLDER), PDFName.of(BYTE_RANGE_PLACEHOLDER)]),
    Contents: PDFHexString.of('0'.repeat(CONTENTS_BYTES * 2)),
  });
}

/**
 * Adds the signature field of `signatureRef`: its widget on the page (visible
 * in `visible`'s rectangle, or invisible on the first page), listed in the
 * page's `/Annots` and the AcroForm's `/Fields`. Answers the objects it
 * changed (the page and the form), which an incremental update must write.
 */
export function addSignatureField(
  doc: PDFDocument,
  signatureRef: PDFRef,
  budget: DocumentBudget,
  visible?: { page: number; rect: [number, number, number, number]; normal: PDFRef },
  options: { emptyAppearance: boolean } = { emptyAppearance: true },
): { page: PDFRef; acroForm: PDFRef | undefined } {
  const { context } = doc;
  // Named before anything is added: a caller's form may have a field called Signature1 already.
  const name = freeSignatureName(fieldNodes(doc, budget));
  const pages = doc.getPages();
  const page = pages[visible?.page ?? 0];
  if (!page) throw new Error('The document has no page to carry the signature');
  // An invisible signature still has an appearance (an empty form): PDF/A wants one on every widget.
  // A document timestamp's widget goes without (ISO 32000-2 recommends none, and validators class a new appearance as form filling).
  const normal =
    visible?.normal ??
    (options.emptyAppearance ? context.register(context.stream('', { Type: 'XObject', Subtype: 'Form', BBox: context.obj([0, 0, 0, 0]) })) : undefined);
  const widget = context.register(
    context.obj({
      Type: 'Annot',
      Subtype: 'Widget',
      FT: 'Sig',
      T: PDFString.of(name),
      V: signatureRef,
      F: 132, // Print, Locked
      Rect: context.obj(visible?.rect ?? [0, 0, 0, 0]),
      P: page.ref,
      ...(normal ? { AP: context.obj({ N: normal }) } : {}),
    }),
  );
  // A caller's document may hold anything where an array or a dictionary belongs: named, not thrown by pdf-lib (a 500).
  const annotations = page.node.lookup(PDFName.of('Annots'));
  if (annotations instanceof PDFArray) annotations.push(widget);
  else if (annotations === undefined) page.node.set(PDFName.of('Annots'), context.obj([widget]));
  else throw new InputPdfError(`Page ${(visible?.page ?? 0) + 1}'s annotations (/Annots) are not a list`);
  const found = doc.catalog.lookup(PDFName.of('AcroForm'));
  if (found !== undefined && !(found instanceof PDFDict)) throw new InputPdfError("The document's form (/AcroForm) is not a dictionary");
  let acroForm = found;
  if (!acroForm) {
    acroForm = context.obj({ Fields: context.obj([]) });
    doc.catalog.set(PDFName.of('AcroForm'), acroForm);
  }
  const fields = acroForm.lookup(PDFName.of('Fields'));
  if (fields instanceof PDFArray) fields.push(widget);
  else if (fields === undefined) acroForm.set(PDFName.of('Fields'), context.obj([widget]));
  else throw new InputPdfError("The document's form fields (/AcroForm /Fields) are not a list");
  acroForm.set(PDFName.of('SigFlags'), PDFNumber.of(3)); // SignaturesExist, AppendOnly
  const acroFormRef = doc.catalog.get(PDFName.of('AcroForm'));
  return { page: page.ref, acroForm: acroFormRef instanceof PDFRef ? acroFormRef : undefined };
}

/**
 * Where the placeholders sit in the saved file: the last byte-range
 * placeholder (the new signature dictionary is written after every object the
 * input had, and an incremental update is appended), and the `/Contents`
 * placeholder that follows it in the same dictionary. A caller's PDF that
 * carries the same text in a content stream (a processed document may) is
 * thus never written into.
 */
function locate(file: Buffer): { byteRangeStart: number; byteRangeEnd: number; contentsStart: number; contentsEnd: number } {
  const marker = `/ByteRange [ 0 /${BYTE_RANGE_PLACEHOLDER} /${BYTE_RANGE_PLACEHOLDER} /${BYTE_RANGE_PLACEHOLDER} ]`;
  const byteRangeStart = file.lastIndexOf(marker);
  if (byteRangeStart < 0) throw new Error('The signature placeholder is not in the file');
  const byteRangeEnd = byteRangeStart + marker.length;
  const contentsMarker = `/Contents <${'0'.repeat(CONTENTS_BYTES * 2)}>`;
  const contentsAt = file.indexOf(contentsMarker, byteRangeEnd);
  // The dictionary is written one entry a line: the contents follow the byte range at once.
  if (contentsAt < 0 || contentsAt - byteRangeEnd > 2) throw new Error('The signature contents placeholder does not follow its byte range');
  const contentsStart = contentsAt + '/Contents '.length;
  return { byteRangeStart, byteRangeEnd, contentsStart, contentsEnd: contentsStart + CONTENTS_BYTES * 2 + 2 };
}

/**
 * Writes the byte range into the one placeholder `file` holds, then the
 * contents `contentsOf` makes from the covered bytes (every byte but the
 * `/Contents` value); answers the file.
 */
export async function fillPlaceholder(file: Buffer, contentsOf: (covered: Buffer) => Promise<Uint8Array>): Promise<Uint8Array> {
  const at = locate(file);
  const byteRange = [0, at.contentsStart, at.contentsEnd, file.length - at.contentsEnd];
  const written = `/ByteRange [${byteRange.join(' ')}]`;
  const marker = file.subarray(at.byteRangeStart, at.byteRangeEnd);
  if (written.length > marker.length) throw new Error('The byte range does not fit its placeholder');
  marker.fill(0x20);
  marker.write(written, 'latin1');
  const covered = Buffer.concat([file.subarray(0, at.contentsStart), file.subarray(at.contentsEnd)]);
  const contents = await contentsOf(covered);
  if (contents.length > CONTENTS_BYTES) throw new Error(`The signature (${contents.length} bytes) does not fit the ${CONTENTS_BYTES} bytes kept for it`);
  file.write(Buffer.from(contents).toString('hex').toUpperCase(), at.contentsStart + 1, 'latin1');
  return new Uint8Array(file.buffer, file.byteOffset, file.byteLength);
}

/**
 * Signs `pdf`: answers a new file with one more signature whose byte range
 * covers the whole file except its own `/Contents` value.
 */
export async function signPdf(pdf: Uint8Array, request: SignatureRequest): Promise<Uint8Array> {
  const { timestamp } = request;
  return fillPlaceholder(Buffer.from(await withPlaceholder(pdf, request)), (covered) =>
    signedData(
      { messageDigest: digestOf(covered, request.signer.digest), signer: request.signer, eContentType: '1.2.840.113549.1.7.1' },
      timestamp ? async (value) => [timestampAttribute(await timestamp(value))] : undefined,
    ),
  );
}
