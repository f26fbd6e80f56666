import { PROCESS_DOCUMENT_CODE, ValidationError } from '../errors.js';
import type { ProcessInput } from '../schemas/process-requests.js';

// The PDF library loads with the first process request that brings its document: no part of a cold start that renders.
let pdfInput: Promise<typeof import('../finishing/input/pdf-input-bounds.js')> | undefined;

/**
 * A process request's document, when it is in the body, read within the
 * input bounds and opened with its password before any quota is spent: a
 * document that cannot be used is a 400 naming `document` (or `password`),
 * and nothing is charged or queued. A `documentUrl` is fetched and read by
 * the render, within its time budget (lib/document-renderer.ts).
 */
export async function checkProcessDocument(input: ProcessInput): Promise<ProcessInput> {
  if (!('document' in input.process)) return input;
  const { readPdfInput } = await (pdfInput ??= import('../finishing/input/pdf-input-bounds.js'));
  const read = await readPdfInput(Buffer.from(input.process.document, 'base64'), { decrypt: true, password: input.password ?? undefined });
  if ('problem' in read) {
    throw new ValidationError({ [read.password ? 'password' : 'document']: read.problem }, { message: 'The document cannot be used', code: PROCESS_DOCUMENT_CODE });
  }
  return input;
}
