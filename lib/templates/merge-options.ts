import { isPlainObject } from '../validation/is-plain-object.js';

type Plain = Record<string, unknown>;

/**
 * Deep-merges `override` over `base` as template rendering defines it: the
 * override wins, objects merge key by key, arrays are replaced whole, and an
 * explicit `null` in the override clears the stored value. Neither input is
 * modified; `__proto__`-style keys are never copied.
 */
export function mergeOptions<T extends Plain>(base: T | null | undefined, override: Plain | null | undefined): T {
  const out: Plain = {};
  for (const source of [base, override]) {
    if (!source) continue;
    for (const [key, value] of Object.entries(source)) {
      if (key === '__proto__' || key === 'constructor' || key === 'prototype') continue;
      if (value === undefined) continue;
      const current = out[key];
      out[key] = isPlainObject(value) && isPlainObject(current) ? mergeOptions(current, value) : clone(value);
    }
  }
  return out as T;
}

function clone(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(clone);
  if (isPlainObject(value)) return mergeOptions({}, value);
  return value;
}
