import { ServiceError } from '../errors.js';

/**
 * An AWS call failed for a reason the caller cannot fix (throttling, network,
 * a missing table). A 500 whose message stays in the logs; the SDK exception
 * is kept as `cause`.
 */
export class StorageError extends ServiceError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, 500, { cause: options.cause });
  }
}

/** The SDK's exception name, e.g. `ConditionalCheckFailedException`, or undefined. */
export function awsErrorName(error: unknown): string | undefined {
  return error instanceof Error ? error.name : undefined;
}

/**
 * Wraps an SDK exception into a `StorageError` naming what was attempted, so
 * that callers never see SDK exceptions.
 */
export function storageError(action: string, error: unknown): StorageError {
  const name = awsErrorName(error);
  const detail = name === 'ResourceNotFoundException' ? 'it does not exist' : name ?? 'unknown error';
  return new StorageError(`${action} failed: ${detail}`, { cause: error });
}
