import { MERGE_PART_CODE, ValidationError } from '../errors.js';

/**
 * A part of a merge failed with a caller's error (a page that would not load,
 * a bad range): the whole merge fails with that part's fields, keyed under
 * `parts.<index>.`, and code `merge.part`. Nothing of a failed merge is
 * charged (lib/http/quota-spend.ts and the job refund read the code).
 */
export function partFailure(error: unknown, index: number): unknown {
  if (!(error instanceof ValidationError)) return error;
  const fields = Object.fromEntries(Object.entries(error.fields).map(([field, problem]) => [`parts.${index}.${field}`, problem]));
  return new ValidationError(fields, { message: `Part ${index} failed: ${error.message}`, code: MERGE_PART_CODE, cause: error });
}
