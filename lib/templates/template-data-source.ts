/**
 * Template data by reference (`page.templateDataUrl`, issue 47): a report's
 * data too large for a request body, read when the render runs from the
 * caller's uploads (`s3://…/uploads/<account id>/…`) or from an http(s) URL
 * through the egress policy, and put in the page as `templateData`. Raw and
 * sync renders read it at the edge, before their plan is built; an async job
 * keeps the reference and its consumer reads it when the job starts, so 64
 * MB of data never travels through the request, the queue or the job record.
 */
import { DocumentFetchError } from '../delivery/errors.js';
import { fetchDocument } from '../delivery/fetch-document.js';
import { ValidationError } from '../errors.js';
import { callerUploadBytes, type CallerUploadDeps } from '../files/caller-uploads.js';
import type { DocumentInput } from '../schemas/merge-requests.js';
import { MAX_TEMPLATE_DATA_URL_BYTES, type PageOptionsOutput } from '../schemas/render-options.js';
import { isPlainObject } from '../validation/is-plain-object.js';
import { MAX_JSON_DEPTH, nestsWithin } from '../validation/json-depth.js';

/** The longest an http(s) templateDataUrl may take to read, whatever the render's budget. */
const TEMPLATE_DATA_FETCH_MS = 60_000;

export type TemplateDataDeps = CallerUploadDeps;

/** Whether any page of the input names its data by reference. */
export function readsTemplateData(input: DocumentInput): boolean {
  return pagesOf(input).some(({ page }) => page.templateDataUrl != null);
}

/**
 * The input with each page's `templateDataUrl` read into its `templateData`
 * (the reference dropped), within `timeLeftMs`. Problems are a 400 on the
 * page's field: `page.templateDataUrl`, or `parts.N.page.templateDataUrl` in a merge.
 */
export async function withTemplateData(input: DocumentInput, accountId: string, deps: TemplateDataDeps, timeLeftMs: number): Promise<DocumentInput> {
  if (!readsTemplateData(input)) return input;
  const pages = await Promise.all(
    pagesOf(input).map(async ({ page, field }) => {
      if (page.templateDataUrl == null) return page;
      const { templateDataUrl, ...rest } = page;
      return { ...rest, templateData: await readTemplateData(templateDataUrl, accountId, deps, { field, timeLeftMs }) };
    }),
  );
  if ('parts' in input) {
    let next = 0;
    return { ...input, parts: input.parts.map((part) => ('page' in part ? { ...part, page: pages[next++] as PageOptionsOutput } : part)) };
  }
  return { ...input, page: pages[0] as PageOptionsOutput } as DocumentInput;
}

/**
 * The input with an empty object standing in for each page's data by
 * reference (the reference kept): what the edge builds a plan from to check
 * the request before any quota is spent, where the data is not read (an
 * async job reads it when it starts). Such a plan is never rendered.
 */
export function withStandInData(input: DocumentInput): DocumentInput {
  if (!readsTemplateData(input)) return input;
  const standIn = (page: PageOptionsOutput): PageOptionsOutput => (page.templateDataUrl != null ? { ...page, templateData: {} } : page);
  if ('parts' in input) return { ...input, parts: input.parts.map((part) => ('page' in part ? { ...part, page: standIn(part.page) } : part)) };
  return { ...input, page: standIn((input as { page: PageOptionsOutput }).page) } as DocumentInput;
}

/** The pages of an input with the field that names each one's reference. */
function pagesOf(input: DocumentInput): Array<{ page: PageOptionsOutput; field: string }> {
  if ('parts' in input) return input.parts.flatMap((part, index) => ('page' in part ? [{ page: part.page, field: `parts.${index}.page.templateDataUrl` }] : []));
  if ('page' in input && input.page) return [{ page: input.page, field: 'page.templateDataUrl' }];
  return [];
}

/** The JSON object at `url`, or a 400 on `field`. */
async function readTemplateData(url: string, accountId: string, deps: TemplateDataDeps, at: { field: string; timeLeftMs: number }): Promise<Record<string, unknown>> {
  const { field } = at;
  let bytes: Buffer;
  if (/^s3:/iu.test(url)) bytes = await callerUploadBytes(url, accountId, deps, { field, maxBytes: MAX_TEMPLATE_DATA_URL_BYTES, message: 'The template data could not be read' });
  else {
    try {
      bytes = await fetchDocument(url, { maxBytes: MAX_TEMPLATE_DATA_URL_BYTES, timeoutMs: Math.max(1_000, Math.min(TEMPLATE_DATA_FETCH_MS, at.timeLeftMs)), accept: 'application/json' });
    } catch (error) {
      if (error instanceof DocumentFetchError) throw new ValidationError({ [field]: error.message }, { message: 'The template data could not be read', cause: error });
      throw error;
    }
  }
  let data: unknown;
  try {
    data = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw new ValidationError({ [field]: `Not valid JSON: ${(error as Error).message}` }, { message: 'The template data could not be read' });
  }
  if (!isPlainObject(data)) throw new ValidationError({ [field]: 'Must be a JSON object' }, { message: 'The template data could not be read' });
  if (!nestsWithin(data, MAX_JSON_DEPTH)) throw new ValidationError({ [field]: `Must not be nested deeper than ${MAX_JSON_DEPTH} levels` }, { message: 'The template data could not be read' });
  return data;
}
