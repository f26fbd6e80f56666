import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lower case

/**
 * A new template id: `tpl_` + 10 characters of creation time (so ids sort by
 * age, which the list's newest-first order relies on) + 16 characters of
 * randomness (80 bits, so ids cannot be guessed).
 */
export function newTemplateId(now = Date.now()): string {
  let time = '';
  for (let t = now, i = 0; i < 10; i++, t = Math.floor(t / 32)) time = ALPHABET[t % 32] + time;
  const random = randomBytes(10);
  let rand = '';
  for (let i = 0; i < 16; i++) {
    const bit = i * 5;
    const byte = bit >> 3;
    const word = ((random[byte] ?? 0) << 8) | (random[byte + 1] ?? 0);
    rand += ALPHABET[(word >> (11 - (bit & 7))) & 31];
  }
  return `tpl_${time}${rand}`;
}

/** Whether a string has the shape of a template id (cheap check before any lookup). */
export function isTemplateId(id: string): boolean {
  return /^tpl_[0-9a-hjkmnp-tv-z]{26}$/.test(id);
}
