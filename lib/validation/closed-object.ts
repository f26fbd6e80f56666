import * as v from 'valibot';
import { isPlainObject } from './is-plain-object.js';

const UNKNOWN_FIELD = 'Unknown field';

const objectMessage = (issue: v.ObjectWithRestIssue): string =>
  issue.expected?.startsWith('"') ? 'Required' : 'Must be an object';

// Keys valibot's object schemas skip without a word (prototype-pollution
// guard); JSON.parse makes them ordinary own keys, so they must be refused
// here or they would be dropped silently instead of named.
const SKIPPED_KEYS = ['__proto__', 'constructor', 'prototype'];


/** The schema type of a closed object, as callers see it. */
export type ClosedObjectSchema<E extends v.ObjectEntries> = v.GenericSchema<
  v.InferInput<v.StrictObjectSchema<E, undefined>>,
  v.InferOutput<v.StrictObjectSchema<E, undefined>>
>;

/**
 * Object schema of the API: every unknown key is an "Unknown field" issue on
 * its own path (strictObject would stop at the first), a missing required
 * key is "Required", and arrays are refused (valibot's objects accept them,
 * so `"pdf": []` would silently mean "no options").
 */
export function closedObject<const E extends v.ObjectEntries>(entries: E): ClosedObjectSchema<E> {
  // At run time the rest of the keys meet `never`; to TypeScript the schema
  // is the strict object it behaves as, without objectWithRest's index
  // signature (which would make every known key `never`).
  return v.pipe(
    v.unknown(),
    v.rawCheck(({ dataset, addIssue }) => {
      const input = dataset.value;
      if (Array.isArray(input)) {
        addIssue({ message: 'Must be an object' });
        return;
      }
      if (!isPlainObject(input)) return;
      for (const key of SKIPPED_KEYS) {
        if (Object.hasOwn(input, key) && !Object.hasOwn(entries, key)) {
          addIssue({
            message: UNKNOWN_FIELD,
            path: [{ type: 'object', origin: 'value', input, key, value: input[key] }],
          });
        }
      }
    }),
    v.objectWithRest(entries, v.never(UNKNOWN_FIELD), objectMessage),
  ) as unknown as ClosedObjectSchema<E>;
}
