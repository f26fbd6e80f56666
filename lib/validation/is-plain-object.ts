/** True for a JSON object: not null, not an array (what request bodies, template data and stored options are made of). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
