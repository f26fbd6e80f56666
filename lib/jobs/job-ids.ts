import { randomBytes } from 'node:crypto';
import { crockfordBase32 } from '../ids/crockford-base32.js';

/**
 * A new job id: `job_` and 128 random bits in base32 (26 characters), so ids
 * cannot be guessed. Sync renders get one too, to name them in logs.
 */
export function newJobId(): string {
  return `job_${crockfordBase32(randomBytes(17), 26)}`;
}

/** Whether a string has the shape of a job id (cheap check before any lookup). */
export function isJobId(id: string): boolean {
  return /^job_[0-9a-hjkmnp-tv-z]{26}$/.test(id);
}
