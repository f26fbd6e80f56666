import type { Job } from '../jobs/job-store.js';
import type { BatchKey } from './batch-store.js';

/**
 * Port: a batch's planned items, kept between the POST that checked and
 * planned them and the fan-out steps that record and queue them, one chunk
 * (a few hundred or thousand job records) per object. Kept under the job
 * inputs, whose lifecycle removes what is left after a day.
 */
export interface BatchPlanStore {
  /** Stores chunk `chunk` of the batch's item records. */
  put(key: BatchKey, chunk: number, jobs: Job[]): Promise<void>;
  /** Chunk `chunk`'s item records, or undefined when there is none (expired, or never stored). */
  get(key: BatchKey, chunk: number): Promise<Job[] | undefined>;
}
