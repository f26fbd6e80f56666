import { randomBytes } from 'node:crypto';
import { crockfordBase32, crockfordBase32Number } from '../../ids/crockford-base32.js';

/**
 * A new font id: `fnt_` + 10 characters of creation time (ids sort by age, the
 * list's order) + 16 characters of randomness (80 bits: ids cannot be guessed),
 * as template ids are made.
 */
export function newFontId(now = Date.now()): string {
  return `fnt_${crockfordBase32Number(now, 10)}${crockfordBase32(randomBytes(10), 16)}`;
}

/** Whether a string has the shape of a font id (cheap check before any lookup). */
export function isFontId(id: string): boolean {
  return /^fnt_[0-9a-hjkmnp-tv-z]{26}$/.test(id);
}
