import { ValidationError } from '../errors.js';
import { MAX_DOCUMENTS_PAGES, mergedFileOnlyKeys, type MergeInput, type MergePartInput } from '../schemas/merge-requests.js';
import type { MergeRequestOutput } from '../schemas/merge-requests.js';
import type { Template } from '../templates/template-store.js';
import { templateRenderInput } from '../templates/templates.js';
import { partFailure } from './merge-errors.js';

/**
 * What a merge request renders: its parts in order, each template part
 * resolved to the page and pdf options of its template with the part's
 * overrides (another account's template is 404 as everywhere), each existing
 * PDF checked to parse and not to be encrypted. All of it before anything
 * renders or any quota is spent, so a bad part is a 400 naming it.
 */
export async function mergeInput(body: Pick<MergeRequestOutput, 'parts' | 'pdf'>, loadTemplate: (id: string) => Promise<Template>): Promise<MergeInput> {
  const parts: MergePartInput[] = [];
  let documentPages = 0;
  for (const [index, part] of body.parts.entries()) {
    if ('document' in part) {
      const field = `parts.${index}.document`;
      documentPages += await checkDocument(part.document, field);
      if (documentPages > MAX_DOCUMENTS_PAGES) {
        throw new ValidationError({ [field]: `The documents of a merge must have at most ${MAX_DOCUMENTS_PAGES} pages together; this one makes ${documentPages}` });
      }
      parts.push({ document: part.document, title: part.title ?? null });
    } else if ('templateId' in part) {
      const template = await loadTemplate(part.templateId);
      if (template.output !== 'PDF') throw new ValidationError({ [`parts.${index}.templateId`]: 'Must be a PDF template' });
      let input;
      try {
        input = templateRenderInput(template, { page: part.page, pdf: part.pdf });
      } catch (error) {
        throw partFailure(error, index);
      }
      if (input.output !== 'PDF') continue;
      // The template's own pdf may set what applies to the merged file only; a part would print it
      // into its pages alone (an encrypted part could not even be assembled), so it is refused as on
      // the part itself, and `null` on the part clears it.
      const refused = mergedFileOnlyKeys(input.pdf);
      if (refused.length > 0) {
        throw new ValidationError(
          Object.fromEntries(
            refused.map((key) => [`parts.${index}.pdf.${key}`, 'Set by the template, and applies to the merged file: set it in the top-level pdf, or null here']),
          ),
        );
      }
      parts.push({ page: input.page, pdf: input.pdf ?? null, title: part.title ?? null });
    } else {
      parts.push({ page: part.page, pdf: part.pdf ?? null, title: part.title ?? null });
    }
  }
  return { output: 'PDF', parts, pdf: body.pdf ?? null };
}

/** Units of quota a merge spends: one per part that renders; an existing PDF costs nothing. */
export function mergeUnits(input: MergeInput): number {
  return input.parts.filter((part) => !('document' in part)).length;
}

// The PDF library loads with the first merge that brings a document: no part of a cold start that renders.
let pdfInput: Promise<typeof import('../finishing/input/pdf-input-bounds.js')> | undefined;

/**
 * A caller's PDF read within the bounds (lib/finishing/input/pdf-input-bounds.ts):
 * parsed, not encrypted, with pages. Whatever fails is a 400 naming the part.
 * Answers its page count.
 */
async function checkDocument(document: string, field: string): Promise<number> {
  const { readPdfInput } = await (pdfInput ??= import('../finishing/input/pdf-input-bounds.js'));
  const read = await readPdfInput(Buffer.from(document, 'base64'));
  if ('problem' in read) throw new ValidationError({ [field]: read.problem });
  return read.pages;
}
