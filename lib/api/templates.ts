import type { AppDeps } from '../bootstrap/app-deps.js';
import { httpEndpoint } from '../http/http-endpoint.js';
import { json, noContent } from '../http/responses.js';
import { parseInput } from '../validation/parse.js';
import { TemplateCreateSchema, TemplateListQuerySchema, TemplateUpdateSchema } from '../schemas/template-requests.js';
import {
  TEMPLATES_PER_PAGE,
  createTemplate,
  deleteTemplate,
  getTemplate,
  templateResponse,
  updateTemplate,
} from '../templates/templates.js';

type TemplateDeps = Pick<AppDeps, 'config' | 'tokens' | 'logger' | 'usage' | 'templates'>;

/** `POST /v1/templates`: 201 with the created template. */
export function createTemplateEndpoint(deps: TemplateDeps) {
  return httpEndpoint(
    {
      name: 'template-create',
      schema: TemplateCreateSchema,
      handle: async ({ caller, body }) => {
        const template = await createTemplate(deps.templates, caller.accountId, body);
        // RFC 9110 §15.3.2: a 201 names what it created.
        return json(201, templateResponse(template), { location: `/v1/templates/${template.id}` });
      },
    },
    deps,
  );
}

/** `GET /v1/templates/{id}`: the template with its variables. */
export function getTemplateEndpoint(deps: TemplateDeps) {
  return httpEndpoint(
    {
      name: 'template-get',
      handle: async ({ caller, params }) =>
        json(200, templateResponse(await getTemplate(deps.templates, caller.accountId, params.id ?? ''))),
    },
    deps,
  );
}

/** `GET /v1/templates?page=N`: 20 summaries a page, newest first. */
export function listTemplatesEndpoint(deps: TemplateDeps) {
  return httpEndpoint(
    {
      name: 'template-list',
      handle: async ({ caller, query }) => {
        const { page } = parseInput(TemplateListQuerySchema, query);
        const result = await deps.templates.list(caller.accountId, page, TEMPLATES_PER_PAGE);
        return json(200, { hasNextPage: result.hasNextPage, hasPreviousPage: result.hasPreviousPage, data: result.items });
      },
    },
    deps,
  );
}

/** `PUT /v1/templates/{id}`: name, variables and/or output; 200 with the whole template. */
export function updateTemplateEndpoint(deps: TemplateDeps) {
  return httpEndpoint(
    {
      name: 'template-update',
      schema: TemplateUpdateSchema,
      preload: ({ caller, params }) => getTemplate(deps.templates, caller.accountId, params.id ?? ''),
      handle: async ({ body }, current) => json(200, templateResponse(await updateTemplate(deps.templates, current, body))),
    },
    deps,
  );
}

/** `DELETE /v1/templates/{id}`: 204. */
export function deleteTemplateEndpoint(deps: TemplateDeps) {
  return httpEndpoint(
    {
      name: 'template-delete',
      handle: async ({ caller, params }) => {
        await deleteTemplate(deps.templates, caller.accountId, params.id ?? '');
        return noContent();
      },
    },
    deps,
  );
}
