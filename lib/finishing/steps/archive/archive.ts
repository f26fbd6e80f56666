/**
 * The `archive` finishing step: document metadata (Info dictionary and XMP,
 * kept equal), PDF/A identification with what Chromium's output needs to
 * conform (see pdfa-fixes.ts), and PDF/UA's document-level requirements.
 */
import { PDFDict, PDFHexString, PDFName, PDFString, type PDFDocument } from '@cantoo/pdf-lib';
import type { DocumentEdit } from '../../pipeline/step-types.js';
import { makeArchival } from './pdfa-fixes.js';
import { makeAccessible } from './pdfua.js';
import { buildXmp } from './xmp.js';

import { PDFA_LEVELS, type DocumentMetadata, type PdfaLevel } from '../../pipeline/finishing-plan.js';

export { PDFA_LEVELS, type PdfaLevel };

/** The part and conformance letter of a level, as pdfaid writes them. */
export function pdfaIdentification(level: PdfaLevel): { part: 2 | 3; conformance: 'B' | 'U' } {
  return { part: level.startsWith('PDF/A-3') ? 3 : 2, conformance: level.endsWith('u') ? 'U' : 'B' };
}


/** What the archive step writes. */
export type ArchiveOptions = {
  metadata: DocumentMetadata;
  /** Names the service; the printing engine Chromium reported is added in parentheses. */
  producer: string;
  pdfa?: PdfaLevel;
  pdfua?: boolean;
  /** Extra XMP for other steps' content (the Factur-X properties and their extension schema). */
  xmp?: { descriptions: string[]; extensionSchemas: string[] };
  /** The time the render ends, for dates the caller did not give. */
  now?: () => Date;
};

/** Text for an Info entry: a hex UTF-16 string when it is not plain ASCII, so every character survives. */
function infoText(text: string): PDFString | PDFHexString {
  return /^[\x20-\x7e]*$/.test(text) ? PDFString.of(text) : PDFHexString.fromText(text);
}

/** The Info dictionary (Chromium writes one; a document without one gets one). */
function infoDict(doc: PDFDocument): PDFDict {
  const existing = doc.context.lookup(doc.context.trailerInfo.Info);
  if (existing instanceof PDFDict) return existing;
  const dict = doc.context.obj({});
  doc.context.trailerInfo.Info = doc.context.register(dict);
  return dict;
}

/**
 * Rewrites the Info dictionary and the XMP packet from one set of values so
 * they agree, as PDF/A requires: the caller's values, else Chromium's (the
 * page's `<title>`), the service as producer, the render's time as dates.
 */
function writeMetadata(doc: PDFDocument, options: ArchiveOptions): void {
  const meta = options.metadata;
  const now = options.now?.() ?? new Date();
  const title = meta.title ?? (doc.getTitle() || undefined);
  const creator = meta.creator ?? doc.getCreator() ?? undefined;
  const creationDate = meta.creationDate ?? now;
  const modificationDate = meta.modificationDate ?? creationDate;
  // The service is the producer; Chromium's PDF engine stays named beside it.
  const engine = doc.getProducer();
  const producer = engine && !engine.startsWith(options.producer) ? `${options.producer} (${engine})` : options.producer;
  const keywords = meta.keywords && meta.keywords.length > 0 ? meta.keywords.join(', ') : undefined;

  const info = infoDict(doc);
  for (const key of info.keys()) info.delete(key);
  const set = (key: string, value: string | undefined) => {
    if (value !== undefined) info.set(PDFName.of(key), infoText(value));
  };
  set('Title', title);
  set('Author', meta.author);
  set('Subject', meta.subject);
  set('Keywords', keywords);
  set('Creator', creator);
  set('Producer', producer);
  info.set(PDFName.of('CreationDate'), PDFString.fromDate(creationDate));
  info.set(PDFName.of('ModDate'), PDFString.fromDate(modificationDate));

  if (meta.language) doc.catalog.set(PDFName.of('Lang'), infoText(meta.language));

  const xmp = buildXmp({
    title,
    author: meta.author,
    subject: meta.subject,
    keywords,
    creator,
    producer,
    language: meta.language,
    creationDate,
    modificationDate,
    pdfa: options.pdfa ? pdfaIdentification(options.pdfa) : undefined,
    pdfua: options.pdfua,
    descriptions: options.xmp?.descriptions,
    extensionSchemas: options.xmp?.extensionSchemas,
  });
  // Uncompressed, so that tools which do not parse PDF can still find the packet (PDF/A asks for no filter).
  const stream = doc.context.stream(new TextEncoder().encode(xmp), { Type: 'Metadata', Subtype: 'XML' });
  doc.catalog.set(PDFName.of('Metadata'), doc.context.register(stream));
}

/** The `archive` step for `options`: an edit of the open document (finishPdf parses and saves it). */
export function archiveStep(options: ArchiveOptions): DocumentEdit {
  return {
    edit: (doc, budget) => {
      budget.check();
      writeMetadata(doc, options);
      if (options.pdfa) makeArchival(doc, pdfaIdentification(options.pdfa), budget);
      if (options.pdfua) makeAccessible(doc, budget);
    },
  };
}
