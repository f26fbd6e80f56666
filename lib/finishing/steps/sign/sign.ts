import { OptionError } from '../../../pdf/errors.js';
import { type PDFDocument, type PDFRef } from '@cantoo/pdf-lib';
import { appendDocumentTimestamp } from '../../../signing/doc-timestamp.js';
import { appendDss } from '../../../signing/dss.js';
import { SignerUnavailableError, TimestampAuthorityError } from '../../../signing/errors.js';
import { signPdf } from '../../../signing/pdf-signature.js';
import { tokenCertificates } from '../../../signing/timestamp.js';
import { mergeMaterial, newMaterial, RevocationUnavailableError, type ValidationMaterial } from '../../../signing/validation-material.js';
import { commonName } from '../../../signing/signer.js';
import type { SignerRegistry } from '../../../signing/signers.js';
import type { PdfStep } from '../../pipeline/step-types.js';
import type { SignPlan } from '../../pipeline/finishing-plan.js';
import { cropBox } from '../../../pdf/page-box.js';
import { openPdf } from '../../pipeline/pdf-document.js';
import type { TextDrawer } from '../stamp/watermark.js';

/** The appearance text's size before it is fitted into the rectangle, and its colour. */
const APPEARANCE_TEXT = { fontSize: 10, color: '#1a237e' };
/** Space between the rectangle's border and what it shows, in points. */
const PADDING = 4;

/**
 * The `sign` step, the last one: a PAdES signature (lib/signing) over the
 * finished file, with the plan's signer and level. A byte step: the signature
 * covers the file as it will be delivered, so nothing may rewrite it after.
 */
export function signStep(plan: SignPlan, signers: SignerRegistry, drawText: TextDrawer, now: () => Date): PdfStep {
  return async (pdf, budget) => {
    const signer = await signers.signer(plan.signer);
    const requestTimestamp = plan.level === 'B-B' ? undefined : signers.timestamp;
    if (plan.level !== 'B-B' && !requestTimestamp) throw new Error(`${plan.level} asked of a deployment without a timestamp authority`);
    // The token is kept: B-LT embeds the validation material of its authority's chain too.
    let token: Uint8Array | undefined;
    const timestamp = requestTimestamp && (async (value: Uint8Array) => (token = await requestTimestamp(value)));
    const at = now();
    const [leaf] = signer.chain;
    const shownName = plan.name ?? (leaf ? commonName(leaf) : undefined);
    const { appearance } = plan;
    const signed = await signPdf(pdf, {
      signer,
      now: at,
      budget,
      ...(plan.reason ? { reason: plan.reason } : {}),
      ...(plan.location ? { location: plan.location } : {}),
      ...(plan.contactInfo ? { contactInfo: plan.contactInfo } : {}),
      ...(plan.name ? { name: plan.name } : {}),
      ...(plan.certify ? { certify: plan.certify } : {}),
      ...(timestamp ? { timestamp } : {}),
      ...(appearance
        ? {
            appearance: (doc: PDFDocument) =>
              drawAppearance(doc, appearance, drawText, appearance.text ?? defaultText(shownName, at, plan.reason)),
          }
        : {}),
    });
    if (plan.level === 'B-B' || plan.level === 'B-T') return signed;
    const material = await longTermMaterial(plan.signer, signer.chain, token, signers);
    const longTerm = await appendDss(signed, material);
    if (plan.level === 'B-LT' || !requestTimestamp) return longTerm;
    // B-LTA: a document timestamp over all of it; its authority's material is added after it unless the DSS has it already.
    const archived = await appendDocumentTimestamp(longTerm, requestTimestamp, budget);
    const tsaMaterial = await timestampMaterial(archived.token, signers);
    const added = newMaterial(tsaMaterial, material);
    return added.certificates.length + added.crls.length > 0 ? appendDss(archived.file, added) : archived.file;
  };
}

/**
 * The B-LT material of the signer's chain and of the timestamp authority's:
 * a CRL that cannot be had is the signer's 502, or the authority's 503.
 */
async function longTermMaterial(name: string, chain: Uint8Array[], token: Uint8Array | undefined, signers: SignerRegistry): Promise<ValidationMaterial> {
  if (!token) throw new Error('B-LT signed without a timestamp token');
  const signerMaterial = await signers.validationMaterial([chain]).catch((error: unknown) => {
    throw error instanceof RevocationUnavailableError ? new SignerUnavailableError(name, error.message) : error;
  });
  return mergeMaterial(signerMaterial, await timestampMaterial(token, signers));
}

/** The material of the chain a timestamp token carries. */
function timestampMaterial(token: Uint8Array, signers: SignerRegistry): Promise<ValidationMaterial> {
  return signers.validationMaterial([tokenCertificates(token)]).catch((error: unknown) => {
    throw error instanceof RevocationUnavailableError ? new TimestampAuthorityError(`certificate's revocation could not be shown: ${error.message}`) : error;
  });
}

/** What a visible signature says unless told: who, when, why. */
export function defaultText(name: string | undefined, at: Date, reason: string | undefined): string {
  const lines = [`Digitally signed by ${name ?? 'unknown signer'}`, `Date: ${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`];
  if (reason) lines.push(`Reason: ${reason}`);
  return lines.join('\n');
}

/**
 * The visible signature's appearance: a thin frame around the rectangle and,
 * fitted inside it, the image or the text (printed by the service's Chromium
 * like a watermark text: any script, real text).
 */
async function drawAppearance(
  doc: PDFDocument,
  appearance: NonNullable<SignPlan['appearance']>,
  drawText: TextDrawer,
  text: string,
): Promise<{ page: number; rect: [number, number, number, number]; normal: PDFRef }> {
  const count = doc.getPageCount();
  const index = appearance.page > 0 ? appearance.page - 1 : count + appearance.page;
  if (index < 0 || index >= count) throw new OptionError({ 'signature.appearance.page': `The document has ${count} page(s)` });
  // Placed from the corner of the page as a reader shows it (its crop box); any page has one (page-box.ts).
  const box = cropBox(doc.getPage(index));
  const { width, height } = appearance;
  let content: { ref: PDFRef; width: number; height: number };
  if (appearance.image) {
    const { kind, bytes } = appearance.image;
    try {
      content = kind === 'png' ? await doc.embedPng(bytes) : await doc.embedJpg(bytes);
    } catch (error) {
      throw new OptionError({ 'signature.appearance.image': 'The image could not be read' }, { cause: error });
    }
  } else {
    const textPdf = await openPdf(await drawText({ text, ...APPEARANCE_TEXT }), 'sign');
    const [embedded] = await doc.embedPdf(textPdf, [0]);
    if (!embedded) throw new Error('The appearance text printed no page');
    content = embedded;
  }
  const scale = Math.min((width - 2 * PADDING) / content.width, (height - 2 * PADDING) / content.height);
  const drawnWidth = content.width * scale;
  const drawnHeight = content.height * scale;
  const x = (width - drawnWidth) / 2;
  const y = (height - drawnHeight) / 2;
  const n = (value: number) => Number(value.toFixed(3));
  const operators = [
    `q 0.1 0.14 0.49 RG 1 w 0.5 0.5 ${n(width - 1)} ${n(height - 1)} re S Q`,
    `q ${n(drawnWidth)} 0 0 ${n(drawnHeight)} ${n(x)} ${n(y)} cm`,
    // An image paints the unit square; a form XObject paints its own box, so it is scaled back to units.
    ...(appearance.image ? [] : [`${n(1 / content.width)} 0 0 ${n(1 / content.height)} 0 0 cm`]),
    '/Sig0 Do Q',
  ];
  const { context } = doc;
  const normal = context.register(
    context.stream(operators.join('\n'), {
      Type: 'XObject',
      Subtype: 'Form',
      BBox: [0, 0, n(width), n(height)],
      Resources: { XObject: { Sig0: content.ref } },
    }),
  );
  const left = box.x + appearance.x;
  const bottom = box.y + appearance.y;
  return { page: index, rect: [left, bottom, left + width, bottom + height], normal };
}
