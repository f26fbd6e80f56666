import type { Job } from './job-store.js';

/**
 * Another consumer holds the job (or its webhook attempt) under a live lease.
 * The message is failed so the queue offers it again later, by when the
 * holder has finished (and the message is dropped) or died (and it is taken over).
 */
export class JobBusyError extends Error {
  constructor(jobId: string) {
    super(`Job ${jobId} is being handled by another consumer; retrying later`);
    this.name = 'JobBusyError';
  }
}

/** A queue message that cannot be understood: retrying it can never help. */
export class MalformedMessageError extends Error {
  constructor(options: { cause?: unknown } = {}) {
    super('Malformed queue message', options);
    this.name = 'MalformedMessageError';
  }
}

/**
 * A change of a job's state did not happen because the job was not in the
 * state the change requires (another consumer got there first, or the job
 * is gone). It carries the job as it stood, undefined when there is none, so
 * the caller can decide what to do next without reading it again.
 */
export class JobConflictError extends Error {
  /** The job as it stood when the change was refused; undefined when the account has no such job. */
  declare readonly current: Job | undefined;

  constructor(jobId: string, current: Job | undefined) {
    super(`Job ${jobId} is not in the state this change requires`);
    this.name = 'JobConflictError';
    // Not enumerable: the record may hold page credentials, and a logged error must not carry them.
    Object.defineProperty(this, 'current', { value: current, enumerable: false });
  }
}
