/**
 * The OpenAPI links that lead a client (and Schemathesis' stateful phase)
 * from what it created to what it can do next: a template to reading,
 * rendering, updating and deleting it; an async render to its job.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildOpenApiDocument } from '../../../lib/openapi/document.js';

type Operation = {
  operationId: string;
  parameters?: Array<{ name: string; in: string; schema?: { enum?: string[] } }>;
  responses: Record<string, { links?: Record<string, { operationId: string; parameters: Record<string, string> }>; content?: Record<string, { schema?: { $ref?: string } }> }>;
};

const document = buildOpenApiDocument() as unknown as {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, { properties?: Record<string, unknown>; required?: string[] }> };
};
const operations = Object.values(document.paths).flatMap((methods) => Object.values(methods));
const byId = new Map(operations.map((operation) => [operation.operationId, operation]));

/** `source → target` for every link of every success answer. */
function links(): Array<{ source: Operation; status: string; target: string; parameters: Record<string, string> }> {
  return operations.flatMap((source) =>
    Object.entries(source.responses).flatMap(([status, response]) =>
      Object.values(response.links ?? {}).map((link) => ({ source, status, target: link.operationId, parameters: link.parameters })),
    ),
  );
}

describe('OpenAPI links', () => {
  it('lead from a created template to reading, rendering, updating and deleting it', () => {
    // Act
    const targets = links().filter((link) => link.source.operationId === 'createTemplate').map((link) => link.target);

    // Assess
    for (const next of ['getTemplate', 'renderTemplate', 'renderTemplateSync', 'renderTemplateAsync', 'updateTemplate', 'deleteTemplate']) {
      assert.ok(targets.includes(next), `createTemplate links to ${next}`);
    }
  });

  it('lead from every async render to its job', () => {
    for (const source of ['createPdfAsync', 'createScreenshotAsync', 'renderTemplateAsync', 'mergePdfAsync']) {
      assert.ok(
        links().some((link) => link.source.operationId === source && link.target === 'getJob'),
        `${source} links to getJob`,
      );
    }
  });

  it('name existing operations and fill their path id from an id the success body always has', () => {
    assert.ok(links().length > 0);
    for (const { source, status, target, parameters } of links()) {
      // Prepare
      const operation = byId.get(target);
      const ref = source.responses[status]!.content?.['application/json']?.schema?.$ref ?? '';
      const body = document.components.schemas[ref.split('/').at(-1)!];

      // Assess
      assert.ok(operation, `${source.operationId} → ${target} exists`);
      assert.ok(status.startsWith('2'), `${source.operationId} links from a success (${status})`);
      assert.deepEqual(Object.keys(parameters), ['id']);
      assert.ok(operation.parameters?.some((parameter) => parameter.name === 'id' && parameter.in === 'path'), `${target} takes a path id`);
      assert.equal(parameters.id, '$response.body#/id');
      assert.ok(body?.required?.includes('id'), `${source.operationId} ${status} always carries id`);
    }
  });

  it('name the studio files GET /studio/{file} serves', () => {
    const file = byId.get('getStudioFile')!.parameters!.find((parameter) => parameter.name === 'file')!;
    assert.deepEqual(file.schema?.enum, ['studio.js', 'studio.css', 'pdf.worker.mjs']);
  });
});
