/**
 * The request bodies of the API as JSON Schema (2020-12, OpenAPI 3.1's
 * dialect), converted from the very valibot schemas that validate them, so
 * the document cannot say something the service does not do.
 */
import { toJsonSchema, toJsonSchemaDefs, type ConversionConfig, type JsonSchema } from '@valibot/to-json-schema';
import type { GenericSchema } from 'valibot';
import { RENDER_REQUEST_SCHEMAS, TemplateVariablesSchema } from '../schemas/render-requests.js';
import { FontUploadSchema } from '../schemas/font-requests.js';
import {
  PdfOptionsSchema,
  StorageOptionsSchema,
  WebhookOptionsSchema,
} from '../schemas/render-options.js';
import { BatchRequestSchema } from '../schemas/batch-requests.js';
import { TemplateCreateSchema, TemplateUpdateSchema } from '../schemas/template-requests.js';
import { withJsonSchemaRules } from './json-schema-rules.js';
import { PROCESS_REQUEST_SCHEMAS } from '../schemas/process-requests.js';
import { DocumentPartSchema, MERGE_REQUEST_SCHEMAS, MergePartSchema, PagePartSchema, TemplatePartSchema } from '../schemas/merge-requests.js';

/** Shared pieces, referenced from the request bodies as `#/components/schemas/<name>`. */
const SHARED: Record<string, GenericSchema> = {
  PdfOptions: PdfOptionsSchema,
  StorageOptions: StorageOptionsSchema,
  WebhookOptions: WebhookOptionsSchema,
  TemplateVariables: TemplateVariablesSchema,
};

/** Request bodies by component name: the render ones straight from the table the endpoints validate with. */
export const REQUEST_BODIES = {
  PdfRequest: RENDER_REQUEST_SCHEMAS.pdf.raw,
  PdfSyncRequest: RENDER_REQUEST_SCHEMAS.pdf.sync,
  PdfAsyncRequest: RENDER_REQUEST_SCHEMAS.pdf.async,
  ScreenshotRequest: RENDER_REQUEST_SCHEMAS.screenshot.raw,
  ScreenshotSyncRequest: RENDER_REQUEST_SCHEMAS.screenshot.sync,
  ScreenshotAsyncRequest: RENDER_REQUEST_SCHEMAS.screenshot.async,
  TemplateRenderRequest: RENDER_REQUEST_SCHEMAS.template.raw,
  TemplateRenderSyncRequest: RENDER_REQUEST_SCHEMAS.template.sync,
  TemplateRenderAsyncRequest: RENDER_REQUEST_SCHEMAS.template.async,
  MergeRequest: MERGE_REQUEST_SCHEMAS.raw,
  MergeSyncRequest: MERGE_REQUEST_SCHEMAS.sync,
  MergeAsyncRequest: MERGE_REQUEST_SCHEMAS.async,
  ProcessRequest: PROCESS_REQUEST_SCHEMAS.raw,
  ProcessSyncRequest: PROCESS_REQUEST_SCHEMAS.sync,
  ProcessAsyncRequest: PROCESS_REQUEST_SCHEMAS.async,
  TemplateCreateRequest: TemplateCreateSchema,
  TemplateUpdateRequest: TemplateUpdateSchema,
  BatchRequest: BatchRequestSchema,
  FontUploadRequest: FontUploadSchema,
} as const satisfies Record<string, GenericSchema>;

export type RequestBodyName = keyof typeof REQUEST_BODIES;

const CONFIG: ConversionConfig = {
  target: 'draft-2020-12',
  // An API object is a pipe of unknown → checks → object (closedObject): the
  // object is the shape a caller sends, and the last schema of the pipe wins.
  typeMode: 'ignore',
  // Custom checks and rules between fields have no JSON Schema form the
  // converter could read: those that JSON Schema can state are added by
  // metadata or json-schema-rules.ts; the rest are written in descriptions.
  errorMode: 'ignore',
  definitions: SHARED,
  overrideRef: ({ referenceId }) => `#/components/schemas/${referenceId}`,
  // A merge part is told apart by its keys at run time (v.lazy); the document shows the three shapes.
  overrideSchema: ({ valibotSchema, jsonSchema }) =>
    valibotSchema === MergePartSchema ? mergePartJsonSchema() : withJsonSchemaRules(valibotSchema, jsonSchema),
  // Rules the converter cannot read from a check, written out where the check is (json-schema-rules.ts).
  overrideAction: ({ valibotAction, jsonSchema }) => withJsonSchemaRules(valibotAction, jsonSchema),
};

/** One request schema as the OpenAPI document states it (its rules added, the dialect and shared pieces left out). */
export function requestJsonSchema(schema: GenericSchema): JsonSchema {
  const { $schema: _dialect, $defs: _defs, ...converted } = toJsonSchema(schema, CONFIG) as JsonSchema & { $defs?: unknown };
  return converted;
}

let mergePart: JsonSchema | undefined;
/** `parts[]` of the merge bodies: a page, a template or an existing PDF. */
function mergePartJsonSchema(): JsonSchema {
  mergePart ??= {
    description: 'One of {page, pdf?, title?}, {templateId, page?, pdf?, title?} or {document, title?}, told apart by the key given.',
    anyOf: [PagePartSchema, TemplatePartSchema, DocumentPartSchema].map(requestJsonSchema),
  };
  return mergePart;
}

/** Every request schema and shared piece as JSON Schema, keyed by component name. */
export function requestComponentSchemas(): Record<string, JsonSchema> {
  const shared = toJsonSchemaDefs(SHARED, CONFIG) as Record<string, JsonSchema>;
  const bodies: Record<string, JsonSchema> = {};
  for (const [name, schema] of Object.entries(REQUEST_BODIES)) {
    bodies[name] = requestJsonSchema(schema as GenericSchema);
  }
  return { ...stripDialects(shared), ...bodies };
}

function stripDialects(schemas: Record<string, JsonSchema>): Record<string, JsonSchema> {
  return Object.fromEntries(
    Object.entries(schemas).map(([name, schema]) => {
      const { $schema: _dialect, ...rest } = schema as JsonSchema & { $schema?: string };
      return [name, rest];
    }),
  );
}
