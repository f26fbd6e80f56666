/**
 * The local stack could not be set up from serverless.yml: an unsupported
 * variable or resource, a missing handler. Raised at start, never at request
 * time, with the place in serverless.yml named in the message.
 */
export class LocalSetupError extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'LocalSetupError';
  }
}
