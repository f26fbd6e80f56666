/**
 * The document timestamp of PAdES B-LTA (ISO 32000-2 §12.8.5, ETSI EN 319
 * 142-1 §5.5): one more incremental update holding a `/DocTimeStamp`
 * signature (`/SubFilter /ETSI.RFC3161`) whose `/Contents` is an RFC 3161
 * token over the whole file up to it, the DSS included: it proves the
 * signature and its validation material existed at that time, and a later
 * one renews it before the authority's algorithms or keys weaken.
 */
import { PDFDocument, ParseSpeeds, PDFRef } from '@cantoo/pdf-lib';
import type { DocumentBudget } from '../budget/document-budget.js';
import { addSignatureField, fillPlaceholder, placeholderDictionary } from './pdf-signature.js';

/** Answers `pdf` with a document timestamp appended, and the timestamp token (its authority's chain is in it). */
export async function appendDocumentTimestamp(
  pdf: Uint8Array,
  timestamp: (data: Uint8Array) => Promise<Uint8Array>,
  budget: DocumentBudget,
): Promise<{ file: Uint8Array; token: Uint8Array }> {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false, parseSpeed: ParseSpeeds.Fastest });
  const snapshot = doc.takeSnapshot();
  const dictionary = placeholderDictionary(doc, { Type: 'DocTimeStamp', SubFilter: 'ETSI.RFC3161' });
  const changed = addSignatureField(doc, doc.context.register(dictionary), budget, undefined, { emptyAppearance: false });
  snapshot.markRefForSave(changed.page);
  // The form is written where it is: its own object, or inside the catalog.
  snapshot.markRefForSave(changed.acroForm ?? (doc.context.trailerInfo.Root as PDFRef));
  const update = await doc.saveIncremental(snapshot, { useObjectStreams: false });
  let token: Uint8Array | undefined;
  const file = await fillPlaceholder(Buffer.concat([pdf, update]), async (covered) => (token = await timestamp(covered)));
  if (!token) throw new Error('The document timestamp was not made');
  return { file, token };
}
