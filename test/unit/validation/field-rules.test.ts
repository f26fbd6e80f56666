/**
 * A rule between fields is written once and read twice (the service's check,
 * the OpenAPI document's JSON Schema): here both readings meet every object
 * a small grid of values makes, and must agree on each.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import * as v from 'valibot';
import { fieldRules, fieldRulesJsonSchema, type FieldConflict, type FieldRefusal } from '../../../lib/validation/field-rules.js';
import { issuesToFields } from '../../../lib/validation/parse.js';

const conflicts: FieldConflict[] = [
  { when: [{ field: 'level', oneOf: ['A-2', 'A-2u'] }, { field: 'files', given: true }], message: 'level A-2 carries no files' },
  { when: [{ field: 'secret', given: true }, { field: 'level', given: true }], message: 'secret and level cannot be combined' },
  {
    when: [{ anyOf: [{ field: 'band', given: true }, { field: 'files', given: true }] }, { anyOf: [{ field: 'flag', given: true }, { field: 'secret', given: true }] }],
    message: ([left, right]) => `${left!.join(' and ')} cannot be combined with ${right!.join(', ')}`,
  },
];
const refusals: FieldRefusal[] = [
  { key: 'flag', message: 'Not here' },
  { key: 'band', field: 'template', message: 'No template here' },
];

/** Every object of these fields, each absent or one of its values. */
function* grid(): Generator<Record<string, unknown>> {
  const values: Record<string, unknown[]> = {
    level: [undefined, null, '', 'A-2', 'A-3'],
    files: [undefined, null, [], ['a']],
    secret: [undefined, null, { password: 'p' }],
    flag: [undefined, null, false, true],
    band: [undefined, null, { template: null }, { template: '' }, { template: 't' }, { html: 'h' }],
  };
  const keys = Object.keys(values);
  const walk = function* (at: number, object: Record<string, unknown>): Generator<Record<string, unknown>> {
    if (at === keys.length) {
      yield object;
      return;
    }
    for (const value of values[keys[at]!]!) yield* walk(at + 1, value === undefined ? object : { ...object, [keys[at]!]: value });
  };
  yield* walk(0, {});
}

describe('rules between fields', () => {
  const check = fieldRules<Record<string, unknown>>({ conflicts, refusals });
  const schema = v.pipe(v.record(v.string(), v.unknown()), check);
  const ajv = new Ajv2020({ strict: false });
  const validate = ajv.compile({ allOf: [...fieldRulesJsonSchema(check)!] });

  it('are refused by the service exactly when the JSON Schema refuses them', () => {
    let refused = 0;
    let count = 0;
    for (const object of grid()) {
      // Act
      const service = v.safeParse(schema, object).success;
      const document = validate(object);

      // Assess
      assert.equal(document, service, `${JSON.stringify(object)}: the document says ${document}, the service ${service}`);
      count += 1;
      if (!service) refused += 1;
    }
    assert.ok(refused > 100 && refused < count - 100, `the grid tries both sides (${refused} of ${count} refused)`);
  });

  it('name every field a rule involves, with its message', () => {
    const fields = (object: unknown) => {
      const result = v.safeParse(schema, object, { abortEarly: false });
      return result.success ? {} : issuesToFields(result.issues);
    };
    assert.deepEqual(fields({ level: 'A-2', files: ['a'] }), { level: 'level A-2 carries no files', files: 'level A-2 carries no files' });
    assert.deepEqual(fields({ band: { html: 'h' }, files: ['a'], secret: {} }), {
      band: 'band and files cannot be combined with secret',
      files: 'band and files cannot be combined with secret',
      secret: 'band and files cannot be combined with secret',
    });
    assert.deepEqual(fields({ flag: true, band: { template: 't' } }), { flag: 'Not here', 'band.template': 'No template here', band: 'band cannot be combined with flag' });
    assert.deepEqual(fields({ level: 'A-3', files: [], flag: false, band: { template: '' } }), {});
  });
});
