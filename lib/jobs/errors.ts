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
