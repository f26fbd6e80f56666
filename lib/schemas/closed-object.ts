import * as v from 'valibot';

const objectMessage = (issue: v.StrictObjectIssue): string => {
  if (issue.expected === 'never') return 'Unknown field';
  if (issue.expected?.startsWith('"')) return 'Required';
  return 'Must be an object';
};

/** True for a JSON object: not null, not an array. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The schema type of a closed object, as callers see it. */
export type ClosedObjectSchema<E extends v.ObjectEntries> = v.GenericSchema<
  v.InferInput<v.StrictObjectSchema<E, undefined>>,
  v.InferOutput<v.StrictObjectSchema<E, undefined>>
>;

/**
 * Object schema of the API: unknown keys are an "Unknown field" issue on
 * their own path, missing required keys "Required", and arrays are refused
 * (valibot's objects accept them, so `"pdf": []` would silently mean "no
 * options"). Only the first unknown key of each object is reported, as
 * valibot's strictObject does.
 */
export function closedObject<const E extends v.ObjectEntries>(entries: E): ClosedObjectSchema<E> {
  // The leading `unknown` only hosts the array check; the typed view is the
  // strict object's, which is what callers send and get back.
  return v.pipe(
    v.unknown(),
    v.check((input) => !Array.isArray(input), 'Must be an object'),
    v.strictObject(entries, objectMessage),
  ) as unknown as ClosedObjectSchema<E>;
}
