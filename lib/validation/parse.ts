import * as v from 'valibot';
import { type FieldErrors, ValidationError } from '../errors.js';

/** Key of an issue that concerns the input as a whole (e.g. the body is not an object). */
export const WHOLE_INPUT_KEY = 'body';

/**
 * Turns valibot issues into the contract's `fields` map: dotted path to
 * message, the first message of each path winning (it is the most basic
 * problem: a wrong type is reported before a limit).
 */
export function issuesToFields(issues: readonly v.BaseIssue<unknown>[]): FieldErrors {
  const fields = new Map<string, string>();
  for (const issue of issues) {
    const key = v.getDotPath(issue) || WHOLE_INPUT_KEY;
    if (!fields.has(key)) fields.set(key, issue.message);
  }
  // Built through a Map: assigning `fields["__proto__"]` would set the prototype instead of naming the field,
  // and a body with only an unknown `__proto__` key would get a 400 with empty `fields`.
  return Object.fromEntries(fields);
}

/**
 * Validates untrusted input against a schema and returns its output, or
 * throws a ValidationError naming every field at fault.
 */
export function parseInput<const S extends v.GenericSchema>(schema: S, input: unknown): v.InferOutput<S> {
  const result = v.safeParse(schema, input, { abortEarly: false });
  if (result.success) return result.output;
  throw new ValidationError(issuesToFields(result.issues));
}
