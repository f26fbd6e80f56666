import { PDFDocument, PDFName, type PDFRef } from '@cantoo/pdf-lib';

/**
 * A one-page document whose form is a chain of `depth` fields, each listing
 * the next one twice in its /Kids: `depth` objects, 2^depth paths for a walk
 * without a visited set (pdf-lib's `getForm().getFields()`).
 */
export async function sharedKidsForm(depth: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.addPage([300, 300]);
  const { context } = doc;
  let below: PDFRef = context.register(context.obj({ T: 'leaf', FT: 'Tx', Rect: [0, 0, 10, 10], Subtype: 'Widget' }));
  for (let level = 0; level < depth; level += 1) below = context.register(context.obj({ T: `n${level}`, Kids: [below, below] }));
  doc.catalog.set(PDFName.of('AcroForm'), context.obj({ Fields: [below] }));
  return doc.save({ updateFieldAppearances: false });
}
