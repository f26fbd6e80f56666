/**
 * The Document Security Store (ISO 32000-2 §12.8.4.3, ETSI EN 319 142-1
 * §5.4.2): the validation material of the file's signatures, added by an
 * incremental update after the last signature, so that every signed byte
 * stays as it was signed. The update adds the certificate and CRL streams
 * and rewrites only the catalog (its `/DSS`): what validators accept after a
 * signature as LTV-only.
 */
import { PDFArray, PDFDict, PDFDocument, PDFName, ParseSpeeds, PDFRef } from '@cantoo/pdf-lib';
import type { ValidationMaterial } from './validation-material.js';

/** Answers `pdf` with one more incremental update: a `/DSS` holding `material` (merged with the DSS it may have). */
export async function appendDss(pdf: Uint8Array, material: ValidationMaterial): Promise<Uint8Array> {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false, parseSpeed: ParseSpeeds.Fastest });
  const snapshot = doc.takeSnapshot();
  const { context } = doc;
  const existing = doc.catalog.get(PDFName.of('DSS'));
  const dss = doc.catalog.lookupMaybe(PDFName.of('DSS'), PDFDict) ?? context.obj({});
  const add = (key: string, items: Uint8Array[]) => {
    if (items.length === 0) return;
    const array = dss.lookupMaybe(PDFName.of(key), PDFArray) ?? context.obj([]);
    for (const item of items) array.push(context.register(context.flateStream(item)));
    dss.set(PDFName.of(key), array);
  };
  add('Certs', material.certificates);
  add('CRLs', material.crls);
  if (existing instanceof PDFRef) snapshot.markRefForSave(existing);
  else doc.catalog.set(PDFName.of('DSS'), context.register(dss));
  snapshot.markRefForSave(context.trailerInfo.Root as PDFRef);
  const update = await doc.saveIncremental(snapshot, { useObjectStreams: false });
  return Buffer.concat([pdf, update]);
}
