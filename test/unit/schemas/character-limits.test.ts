/**
 * interface.md's lengths are in characters (template name 200, colorScheme
 * 20, selector and pageFunction 1024), as JSON Schema's maxLength counts them:
 * Unicode code points, so a character outside the BMP (an emoji) counts one,
 * not the two UTF-16 units JavaScript's `length` sees.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as v from 'valibot';
import { PageOptionsSchema, ScreenshotOptionsSchema } from '../../../lib/schemas/render-options.js';
import { TemplateCreateSchema } from '../../../lib/schemas/template-requests.js';
import { requestComponentSchemas } from '../../../lib/openapi/request-schemas.js';

const EMOJI = '😀';
const ok = (schema: v.GenericSchema, input: unknown) => v.safeParse(schema, input).success;

describe('character limits count characters, not UTF-16 units', () => {
  it('takes a template name of 200 emoji and refuses 201', () => {
    assert.ok(ok(TemplateCreateSchema, { name: EMOJI.repeat(200) }));
    assert.ok(!ok(TemplateCreateSchema, { name: EMOJI.repeat(201) }));
  });

  it('takes a colorScheme of 20 emoji and refuses 21', () => {
    assert.ok(ok(PageOptionsSchema, { colorScheme: EMOJI.repeat(20) }));
    assert.ok(!ok(PageOptionsSchema, { colorScheme: EMOJI.repeat(21) }));
  });

  it('takes a selector, pageFunction and element of 1024 characters with emoji and refuses 1025', () => {
    const selector = `[title="${EMOJI.repeat(1024 - 10)}"]`;
    assert.equal([...selector].length, 1024);
    const fn = `"${EMOJI.repeat(1022)}"`;
    assert.ok(ok(PageOptionsSchema, { waitForSelector: { selector } }));
    assert.ok(ok(PageOptionsSchema, { waitForFunction: { pageFunction: fn } }));
    assert.ok(ok(ScreenshotOptionsSchema, { element: selector }));
    assert.ok(!ok(PageOptionsSchema, { waitForSelector: { selector: `${selector} ` } }));
    assert.ok(!ok(PageOptionsSchema, { waitForFunction: { pageFunction: `${fn} ` } }));
  });

  it('still publishes the limits as maxLength in the OpenAPI schemas', () => {
    const schemas = requestComponentSchemas() as Record<string, any>;
    assert.equal(schemas.TemplateCreateRequest.properties.name.maxLength, 200);
  });
});
