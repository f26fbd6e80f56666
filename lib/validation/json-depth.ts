/**
 * Deepest nesting of objects and arrays a caller's free-form JSON
 * (`page.templateData`) may have: the Handlebars data cleaner refuses deeper
 * data (lib/render/handlebars.ts, `MAX_DATA_DEPTH`), and recursive code on the
 * way there (merging a request over a template) must never meet thousands of
 * levels, where it would overflow the stack (a 500) instead of answering 400.
 */
export const MAX_JSON_DEPTH = 100;

/**
 * True when `value` nests objects and arrays at most `limit` levels deep
 * (a scalar is 0, `{}` is 1). Stops descending past the limit, so a hostile
 * body of any depth costs at most `limit` stack frames.
 */
export function nestsWithin(value: unknown, limit: number): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (limit <= 0) return false;
  for (const child of Object.values(value)) {
    if (!nestsWithin(child, limit - 1)) return false;
  }
  return true;
}
