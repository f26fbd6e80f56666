/**
 * The finishing stage: operations on a printed PDF, after the output layer
 * and before delivery (Gotenberg's PDF engines are the model: each step is a
 * small function with its own typed errors, the order written down once).
 */
import type { PDFDocument } from '@cantoo/pdf-lib';
import type { DocumentBudget } from './budget.js';

/**
 * An operation on a finished PDF's bytes, for a step that makes a new file (assembly builds one from its parts).
 * Every step spends from the request's one `budget` (budget.ts): its loops over the document check it.
 */
export type PdfStep = (pdf: Uint8Array, budget: DocumentBudget) => Promise<Uint8Array>;

/**
 * An edit of the open document. Parsing and saving are much of what a step
 * costs, so consecutive edits share one parse and one save: a watermarked,
 * protected statement or an e-invoice (the archive edit, then the attach
 * edit) loads the printed PDF once and saves it once.
 */
export type DocumentEdit = {
  edit: (doc: PDFDocument, budget: DocumentBudget) => void | Promise<void>;
  /** The document is saved with object streams (the compress step's): smaller, slower to write. */
  compact?: boolean;
};

/** A step of the finishing: bytes to bytes, or an edit of the open document. */
export type FinishingStep = PdfStep | DocumentEdit;

/**
 * The order the steps run in, written down once: parts are assembled first so
 * that every later step sees one document; the pages are chosen, ordered and
 * turned next (so every step after counts the final pages); the form is filled
 * and flattened before anything is drawn over it; a render's running header
 * and footer (bands) number the final pages; the stamp goes over them;
 * metadata and the archival identification describe the stamped document;
 * attachments join it; compression rewrites the images and stores what is
 * identical once (after every step that adds content, so PDF/A's fixes and the
 * attachments are compressed too, and before encryption and the signature,
 * which must cover the final bytes); encryption comes next, over everything;
 * the signature last, over the finished file's every byte (a signature and
 * encryption are not combined: the schema refuses both).
 */
export const FINISHING_ORDER = ['assemble', 'pages', 'form', 'bands', 'stamp', 'archive', 'attach', 'compress', 'protect', 'sign'] as const;

/** A stage of the finishing pipeline. */
export type FinishingStage = (typeof FINISHING_ORDER)[number];

/** The steps a render asks for, by stage; a stage without a step is skipped. */
export type FinishingSteps = Partial<Record<FinishingStage, FinishingStep>>;

// Loaded with the first edit, once: the PDF library is no part of a render that only passes bytes on.
let pdfDocument: Promise<typeof import('./pdf-document.js')> | undefined;
const loadPdfDocument = () => (pdfDocument ??= import('./pdf-document.js'));

/**
 * Runs the given steps over `pdf` in `FINISHING_ORDER`, each spending from
 * `budget` (checked before each step too); with no step, answers `pdf`
 * itself. A run of document edits opens the PDF at its first edit and saves
 * it before the next byte step, or at the end.
 */
export async function finishPdf(pdf: Uint8Array, steps: FinishingSteps, budget: DocumentBudget): Promise<Uint8Array> {
  let current = pdf;
  let open: { doc: PDFDocument; stages: FinishingStage[]; compact: boolean } | undefined;
  let io: typeof import('./pdf-document.js') | undefined;
  for (const stage of FINISHING_ORDER) {
    const step = steps[stage];
    if (!step) continue;
    budget.check();
    if (typeof step === 'function') {
      if (open && io) current = await io.savePdf(open.doc, open.stages.join('+'), open.compact);
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
  if (open && io) current = await io.savePdf(open.doc, open.stages.join('+'), open.compact);
  return current;
}
