import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as v from 'valibot';
import { ValidationError } from '../../../lib/errors.js';
import { issuesToFields, parseInput } from '../../../lib/validation/parse.js';

const Schema = v.strictObject({
  name: v.pipe(v.string('Must be a string'), v.minLength(3, 'Too short'), v.regex(/^[a-z]+$/, 'Lower case only')),
  size: v.number('Must be a number'),
});

describe('parseInput', () => {
  it('returns the parsed output when the input is valid', () => {
    assert.deepEqual(parseInput(Schema, { name: 'abc', size: 2 }), { name: 'abc', size: 2 });
  });

  it('throws a ValidationError with code api.validation and status 400', () => {
    assert.throws(
      () => parseInput(Schema, { name: 'abc', size: 'big' }),
      (error) =>
        error instanceof ValidationError &&
        error.statusCode === 400 &&
        error.code === 'api.validation' &&
        typeof error.message === 'string' &&
        error.fields.size === 'Must be a number',
    );
  });

  it('reports every faulty field, not only the first', () => {
    assert.throws(
      () => parseInput(Schema, { name: 5, size: 'big' }),
      (error) => error instanceof ValidationError && Object.keys(error.fields).sort().join() === 'name,size',
    );
  });

  it('keeps the first message of a path when several rules fail on it', () => {
    assert.throws(
      () => parseInput(Schema, { name: 'AB', size: 1 }),
      (error) => error instanceof ValidationError && error.fields.name === 'Too short',
    );
  });

  it('uses the key body for an issue about the input as a whole', () => {
    assert.throws(
      () => parseInput(Schema, 'not an object'),
      (error) => error instanceof ValidationError && Object.keys(error.fields).join() === 'body',
    );
  });
});

describe('issuesToFields', () => {
  it('joins nested paths with dots, array indexes included', () => {
    // Prepare
    const schema = v.object({ page: v.object({ cookies: v.array(v.object({ name: v.string('Must be a string') })) }) });
    const result = v.safeParse(schema, { page: { cookies: [{ name: 'a' }, { name: 1 }] } }, { abortEarly: false });
    assert.equal(result.success, false);
    // Act
    const fields = issuesToFields(result.issues ?? []);
    // Assess
    assert.deepEqual(fields, { 'page.cookies.1.name': 'Must be a string' });
  });
});
