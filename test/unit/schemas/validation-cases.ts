/**
 * Shared shapes for the schema tests: run a body through parseInput the way
 * the HTTP stack does, and read back the 400's `fields` or the output.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type * as v from 'valibot';
import { type FieldErrors, ValidationError } from '../../../lib/errors.js';
import { parseInput } from '../../../lib/validation/parse.js';

export const PAGE_URL = 'https://example.com/report';

/** Standard base64 of UTF-8 text, as a client would send HTML. */
export const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

/** The `fields` of the ValidationError the input causes; fails the test when it parses. */
export function fieldsOf(schema: v.GenericSchema, input: unknown): FieldErrors {
  try {
    parseInput(schema, input);
  } catch (error) {
    assert.ok(error instanceof ValidationError, `expected ValidationError, got ${String(error)}`);
    assert.equal(error.statusCode, 400);
    assert.equal(error.code, 'api.validation');
    return error.fields;
  }
  return assert.fail(`expected a 400 for ${JSON.stringify(input)}`);
}

/** Asserts a 400 whose `fields` names exactly these keys, and returns the fields. */
export function assertRejected(schema: v.GenericSchema, input: unknown, keys: string | string[]): FieldErrors {
  const fields = fieldsOf(schema, input);
  assert.deepEqual(Object.keys(fields).sort(), [keys].flat().sort(), JSON.stringify(fields));
  return fields;
}

/** Parses input that must be accepted; a ValidationError fails the test with its fields. */
export function parsed(schema: v.GenericSchema, input: unknown): any {
  try {
    return parseInput(schema, input);
  } catch (error) {
    if (error instanceof ValidationError) assert.fail(`unexpected 400: ${JSON.stringify(error.fields)}`);
    throw error;
  }
}

/** Reads a dotted path out of a parsed body. */
export function at(value: unknown, path: string): unknown {
  return path.split('.').reduce<any>((node, key) => node?.[key], value);
}

const show = (value: unknown) => {
  const text = typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
};

/**
 * Generates one test per value: accepted values parse and are kept at `field`
 * (or become `kept(value)`), rejected values give a 400 naming exactly `field`
 * (or `rejectKey`), with a message matching `message` when given.
 */
export function fieldCases(options: {
  schema: v.GenericSchema;
  field: string;
  body: (value: unknown) => unknown;
  accept?: unknown[];
  reject?: unknown[];
  message?: RegExp;
  kept?: (value: unknown) => unknown;
  rejectKey?: string;
}): void {
  const { schema, field, body, accept = [], reject = [], message, kept = (x) => x, rejectKey = field } = options;
  for (const value of accept) {
    it(`accepts ${field} ${show(value)} and keeps it`, () => {
      // Prepare
      const input = body(value);
      // Act
      const output = parsed(schema, input);
      // Assess
      assert.deepEqual(at(output, field), kept(value));
    });
  }
  for (const value of reject) {
    it(`rejects ${field} ${show(value)} with a 400 on ${rejectKey}`, () => {
      // Prepare
      const input = body(value);
      // Act
      const fields = assertRejected(schema, input, rejectKey);
      // Assess
      if (message) assert.match(fields[rejectKey] ?? '', message);
    });
  }
}
