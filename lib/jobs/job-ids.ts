import { randomBytes } from 'node:crypto';

/**
 * A new job id: `job_` and 128 random bits in base32 (26 characters), so ids
 * cannot be guessed. Sync renders get one too, to name them in logs.
 */
export function newJobId(): string {
  const bytes = randomBytes(17);
  let id = '';
  for (let i = 0; i < 26; i++) {
    const bit = i * 5;
    const byte = bit >> 3;
    const word = ((bytes[byte] ?? 0) << 8) | (bytes[byte + 1] ?? 0);
    id += ALPHABET[(word >> (11 - (bit & 7))) & 31];
  }
  return `job_${id}`;
}

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lower case

/** Whether a string has the shape of a job id (cheap check before any lookup). */
export function isJobId(id: string): boolean {
  return /^job_[0-9a-hjkmnp-tv-z]{26}$/.test(id);
}
