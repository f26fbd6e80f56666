/**
 * Which numbers a DynamoDB item can hold as they are. The document client
 * refuses any number past Number.MAX_SAFE_INTEGER (it could lose digits), and
 * DynamoDB itself refuses magnitudes below 1e-130 or above 9.99e125. A
 * caller's free-form data (`templateData`) and open-ended options (`clip.x`)
 * may hold such numbers; the stores keep those values in S3 instead of the
 * item, as they do values too large or too deeply nested.
 */

/** Smallest non-zero magnitude DynamoDB stores. */
const SMALLEST_MAGNITUDE = 1e-130;

/** True when every number in `value` (walked to `depthLimit` levels; callers check depth first) fits an item as is. */
export function holdsOnlyItemNumbers(value: unknown, depthLimit = 100): boolean {
  if (typeof value === 'number') {
    const magnitude = Math.abs(value);
    return magnitude === 0 || (magnitude >= SMALLEST_MAGNITUDE && magnitude <= Number.MAX_SAFE_INTEGER);
  }
  if (value === null || typeof value !== 'object') return true;
  if (depthLimit <= 0) return false;
  for (const child of Object.values(value)) {
    if (!holdsOnlyItemNumbers(child, depthLimit - 1)) return false;
  }
  return true;
}
