/**
 * The field builders every request schema and every finishing step's options
 * are written with, defined once: a field documented for the OpenAPI document,
 * a choice among names, a bounded number. Each message is the contract's
 * ("Must be one of: …", "Must be at least …").
 */
import * as v from 'valibot';

/**
 * Documents a field for the OpenAPI document (lib/openapi): its default as
 * the contract states it and what it is for. Metadata only: what the field
 * accepts does not change, and the service applies the default itself.
 */
export function documented<const S extends v.GenericSchema>(schema: S, meta: { default?: unknown; description?: string }) {
  return v.pipe(schema, v.metadata(meta));
}

/** One of the given names. */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return v.picklist(values, `Must be one of: ${values.join(', ')}`);
}

/** A number from `min` to `max`, both included. */
export function numberBetween(min: number, max: number) {
  return v.pipe(v.number('Must be a number'), v.minValue(min, `Must be at least ${min}`), v.maxValue(max, `Must be at most ${max}`));
}

/** A whole number from `min` to `max`, both included. */
export function integerBetween(min: number, max: number) {
  return v.pipe(v.number('Must be a number'), v.integer('Must be a whole number'), v.minValue(min, `Must be at least ${min}`), v.maxValue(max, `Must be at most ${max}`));
}

/** A number above 0, at most `max`. */
export function positiveNumberUpTo(max: number) {
  return v.pipe(v.number('Must be a number'), v.gtValue(0, 'Must be greater than 0'), v.maxValue(max, `Must be at most ${max}`));
}
