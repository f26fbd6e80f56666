import { NotFoundError, ValidationError } from '../errors.js';
import type { DocumentInput } from '../schemas/merge-requests.js';
import { BatchItemSchema, type BatchItemEntryOutput, type BatchItemOutput, type BatchRequestOutput } from '../schemas/batch-requests.js';
import type { RenderInput } from '../schemas/render-requests.js';
import { parseInput } from '../validation/parse.js';
import type { Template } from '../templates/template-store.js';
import { mergeOptions } from '../templates/merge-options.js';
import { templateRenderInput } from '../templates/templates.js';

/** An item checked and planned: what its job stores, and its name and metadata in the batch. */
export type PreparedItem<P> = { input: DocumentInput; prepared: P; name: string; metadata?: Record<string, string> };

/** Field errors a 400 names at most: a batch of 10,000 bad items answers with the first ones. */
const MAX_FIELD_ERRORS = 100;

/**
 * Every item of a batch checked before anything is queued or spent: each is
 * merged over `defaults`, held to what /v1/pdf, /v1/screenshot or
 * /v1/template/{id} takes (`BatchItemSchema`, the templates' own merge), then
 * planned by `prepare` (the render endpoints' own plan builder). Every problem
 * is named under `items.<index>.` in one 400; names must be unique.
 */
export async function prepareBatch<P>(
  body: Pick<BatchRequestOutput, 'defaults'> & { items: BatchItemEntryOutput[] },
  loadTemplate: (id: string) => Promise<Template>,
  prepare: (input: DocumentInput) => Promise<P>,
): Promise<PreparedItem<P>[]> {
  const fields: Record<string, string> = {};
  const problem = (index: number, error: unknown) => {
    if (!(error instanceof ValidationError)) throw error;
    for (const [field, message] of Object.entries(error.fields)) {
      if (Object.keys(fields).length < MAX_FIELD_ERRORS) fields[`items.${index}.${field}`] = message;
    }
  };
  const templates = new Map<string, Promise<Template>>();
  const template = (id: string) => {
    let loading = templates.get(id);
    if (!loading) templates.set(id, (loading = loadTemplate(id)));
    return loading;
  };
  const names = new Map<string, number>();
  const items: PreparedItem<P>[] = [];
  for (const [index, entry] of body.items.entries()) {
    if (Object.keys(fields).length >= MAX_FIELD_ERRORS) break;
    try {
      const item = parseInput(BatchItemSchema, mergeOptions(body.defaults ?? {}, entry));
      const name = item.name ?? String(index);
      const first = names.get(name);
      if (first !== undefined) throw new ValidationError({ name: `Must be unique in the batch (items.${first} has it${item.name ? '' : ' as its index'})` });
      names.set(name, index);
      const input = 'templateId' in item ? templateRenderInput(await loadedTemplate(template, item.templateId), item) : directInput(item);
      items.push({ input, prepared: await prepare(input), name, ...(item.metadata ? { metadata: item.metadata } : {}) });
    } catch (error) {
      problem(index, error);
    }
  }
  if (Object.keys(fields).length > 0) throw new ValidationError(fields);
  return items;
}

/** A template item's template; an unknown one is a 400 naming the item's `templateId` (404 is for the path's own resource). */
async function loadedTemplate(template: (id: string) => Promise<Template>, id: string): Promise<Template> {
  try {
    return await template(id);
  } catch (error) {
    if (error instanceof NotFoundError) throw new ValidationError({ templateId: 'No template of this account has this id' });
    throw error;
  }
}

/** A page item's render, as /v1/pdf or /v1/screenshot takes it. */
function directInput(item: Exclude<BatchItemOutput, { templateId: string }>): RenderInput {
  if ('screenshot' in item && item.screenshot != null) return { output: 'IMAGE', page: item.page, screenshot: item.screenshot };
  return { output: 'PDF', page: item.page, pdf: 'pdf' in item ? item.pdf : null };
}
