import { NotFoundError } from '../errors.js';
import type { RenderInput } from '../schemas/render-requests.js';
import { parseMergedOptions, type TemplateRenderRequestOutput } from '../schemas/render-requests.js';
import type { TemplateCreateOutput, TemplateUpdateOutput } from '../schemas/template-requests.js';
import { mergeOptions } from './merge-options.js';
import { isTemplateId, newTemplateId } from './template-ids.js';
import type { Template, TemplateOutput, TemplateStore, TemplateVariables } from './template-store.js';

export const TEMPLATES_PER_PAGE = 20;

/** A template's output when none is given: IMAGE for screenshot-only variables, else PDF. */
export function inferOutput(variables: TemplateVariables | null | undefined): TemplateOutput {
  return variables?.screenshot != null && variables?.pdf == null ? 'IMAGE' : 'PDF';
}

/** Creates a template owned by `accountId`. */
export async function createTemplate(
  store: TemplateStore,
  accountId: string,
  input: TemplateCreateOutput,
  now = new Date(),
): Promise<Template> {
  const variables = (input.variables ?? {}) as TemplateVariables;
  const at = now.toISOString();
  const template: Template = {
    id: newTemplateId(now.getTime()),
    accountId,
    name: input.name,
    output: input.output ?? inferOutput(variables),
    variables,
    createdAt: at,
    updatedAt: at,
  };
  await store.create(template);
  return template;
}

/** The account's template, or NotFoundError (also for another account's id). */
export async function getTemplate(store: TemplateStore, accountId: string, id: string): Promise<Template> {
  const template = isTemplateId(id) ? await store.get(accountId, id) : undefined;
  if (!template) throw new NotFoundError('Template not found');
  return template;
}

/**
 * Applies an update. Without an explicit `output`, new variables re-infer it
 * (as on create); otherwise the stored output stays.
 */
export async function updateTemplate(
  store: TemplateStore,
  current: Template,
  patch: TemplateUpdateOutput,
  now = new Date(),
): Promise<Template> {
  const variables = (patch.variables ?? current.variables) as TemplateVariables;
  const updated: Template = {
    ...current,
    name: patch.name ?? current.name,
    variables,
    output: patch.output ?? (patch.variables ? inferOutput(variables) : current.output),
    updatedAt: now.toISOString(),
  };
  if (!(await store.replace(updated))) throw new NotFoundError('Template not found');
  return updated;
}

/** Deletes the account's template, or NotFoundError. */
export async function deleteTemplate(store: TemplateStore, accountId: string, id: string): Promise<void> {
  const removed = isTemplateId(id) ? await store.remove(accountId, id) : false;
  if (!removed) throw new NotFoundError('Template not found');
}

/**
 * What to render for a template and a request: the request's options merged
 * over the stored variables, validated as a direct render would be. Only the
 * options of the template's output apply; the others are ignored.
 */
export function templateRenderInput(template: Template, request: Pick<TemplateRenderRequestOutput, 'page' | 'pdf' | 'screenshot'>): RenderInput {
  const stored = template.variables;
  const merged = parseMergedOptions({
    page: mergeOptions(stored.page, request.page),
    ...(template.output === 'PDF'
      ? { pdf: mergeOptions(stored.pdf, request.pdf) }
      : { screenshot: mergeOptions(stored.screenshot, request.screenshot) }),
  });
  return template.output === 'PDF'
    ? { output: 'PDF', page: merged.page, pdf: merged.pdf }
    : { output: 'IMAGE', page: merged.page, screenshot: merged.screenshot };
}

/** The API's view of a template (the owner is implicit). */
export function templateResponse(template: Template) {
  return {
    id: template.id,
    name: template.name,
    output: template.output,
    createdAt: template.createdAt,
    updatedAt: template.updatedAt,
    variables: template.variables,
  };
}
