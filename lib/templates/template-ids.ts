import { randomBytes } from 'node:crypto';
import { crockfordBase32, crockfordBase32Number } from '../ids/crockford-base32.js';

/**
 * A new template id: `tpl_` + 10 characters of creation time (so ids sort by
 * age, which the list's newest-first order relies on) + 16 characters of
 * randomness (80 bits, so ids cannot be guessed).
 */
export function newTemplateId(now = Date.now()): string {
  return `tpl_${crockfordBase32Number(now, 10)}${crockfordBase32(randomBytes(10), 16)}`;
}

/** Whether a string has the shape of a template id (cheap check before any lookup). */
export function isTemplateId(id: string): boolean {
  return /^tpl_[0-9a-hjkmnp-tv-z]{26}$/.test(id);
}
