/**
 * The two shapes of a finishing step (Gotenberg's PDF engines are the model:
 * each step is a small function with its own typed errors). Every step
 * spends from the request's one `budget` (budget.ts): its loops over the
 * document check it.
 */
import type { PDFDocument } from '@cantoo/pdf-lib';
import type { DocumentBudget } from '../../budget/document-budget.js';

/** An operation on a finished PDF's bytes, for a step that makes a new file (assembly builds one from its parts, a signature appends to it). */
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
