/**
 * The finishing stage: operations on a printed PDF, after the output layer
 * and before delivery, run in the registry's order (registry.ts).
 */
import type { PDFDocument } from '@cantoo/pdf-lib';
import type { DocumentBudget } from '../../budget/document-budget.js';
import { FINISHING_ORDER, type FinishingSteps } from './registry.js';
import type { FinishingStep } from './step-types.js';

// Loaded with the first edit, once: the PDF library is no part of a render that only passes bytes on.
let pdfDocument: Promise<typeof import('./pdf-document.js')> | undefined;
const loadPdfDocument = () => (pdfDocument ??= import('./pdf-document.js'));

/**
 * Runs the given steps over `pdf` in the registry's order (or `order`), each spending from
 * `budget` (checked before each step too); with no step, answers `pdf`
 * itself. A run of document edits opens the PDF at its first edit and saves
 * it before the next byte step, or at the end. `facts`, when given, gets the
 * page count of the last document opened (byte steps do not change pages).
 */
export async function finishPdf(
  pdf: Uint8Array,
  steps: FinishingSteps | Record<string, FinishingStep>,
  budget: DocumentBudget,
  order: readonly string[] = FINISHING_ORDER,
  facts?: { pageCount?: number },
): Promise<Uint8Array> {
  let current = pdf;
  let open: { doc: PDFDocument; stages: string[]; compact: boolean } | undefined;
  let io: typeof import('./pdf-document.js') | undefined;
  for (const stage of order) {
    const step = (steps as Record<string, FinishingStep | undefined>)[stage];
    if (!step) continue;
    budget.check();
    if (typeof step === 'function') {
      if (open && facts) facts.pageCount = open.doc.getPageCount();
      if (open && io) current = await io.savePdf(open.doc, open.stages.join('+'), budget, open.compact);
      open = undefined;
      current = await step(current, budget);
      continue;
    }
    io ??= await loadPdfDocument();
    open ??= { doc: await io.openPdf(current, stage), stages: [], compact: false };
    open.stages.push(stage);
    if (step.compact) open.compact = true;
    await step.edit(open.doc, budget);
  }
  budget.check();
  if (open && facts) facts.pageCount = open.doc.getPageCount();
  if (open && io) current = await io.savePdf(open.doc, open.stages.join('+'), budget, open.compact);
  return current;
}
