/**
 * The Lambda Extensions API refused a call or could not be reached. Never
 * reaches a caller of the service: the post-response extension reports it
 * and the work then runs without an extension holding the environment.
 */
export class ExtensionsApiError extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'ExtensionsApiError';
  }
}
