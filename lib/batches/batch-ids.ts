import { randomBytes } from 'node:crypto';
import { crockfordBase32 } from '../ids/crockford-base32.js';

/** A new batch id: `bat_` and 128 random bits in base32 (26 characters), unguessable as job ids are. */
export function newBatchId(): string {
  return `bat_${crockfordBase32(randomBytes(17), 26)}`;
}

/** Whether a string has the shape of a batch id (cheap check before any lookup). */
export function isBatchId(id: string): boolean {
  return /^bat_[0-9a-hjkmnp-tv-z]{26}$/.test(id);
}

/** The job id of a batch's item: `<batchId>.<index>`, so the batch's items are one key range of its account. */
export function batchItemJobId(batchId: string, index: number): string {
  return `${batchId}.${index}`;
}
