import { isServerError, isThrottlingError, isTransientError } from '@smithy/core/retry';
import { ServiceError } from '../errors.js';

/**
 * An AWS call failed for a reason the caller cannot fix and a retry will not
 * cure (a missing table, access denied, a malformed request). A 500 whose
 * message stays in the logs; the SDK exception is kept as `cause`.
 */
export class StorageError extends ServiceError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, 500, { cause: options.cause });
  }
}

/** Seconds a caller is told to wait after AWS throttled or failed: a few backoffs' worth. */
export const STORAGE_RETRY_AFTER_SECONDS = 5;

/**
 * AWS throttled the call or failed on its side (DynamoDB
 * `ProvisionedThroughputExceededException` or a 5xx, S3 `SlowDown` or 503,
 * SQS unavailable, a dropped connection), and kept failing through the SDK's
 * own retries with backoff. A 503 with `Retry-After`: the same request is
 * likely to work a little later. The message (what was attempted) stays in
 * the logs; the caller gets the generic 503 message.
 */
export class StorageUnavailableError extends ServiceError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, 503, { cause: options.cause, expose: false, headers: { 'retry-after': String(STORAGE_RETRY_AFTER_SECONDS) } });
  }
}

/** The SDK's exception name, e.g. `ConditionalCheckFailedException`, or undefined. */
export function awsErrorName(error: unknown): string | undefined {
  return error instanceof Error ? error.name : undefined;
}

/**
 * True for an SDK failure that is AWS being busy or briefly broken, as the
 * SDK's own retry strategy classifies it (throttling, transient, 5xx).
 */
export function isAwsUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const sdkError = error as Parameters<typeof isTransientError>[0];
  return isThrottlingError(sdkError) || isTransientError(sdkError) || isServerError(sdkError);
}

/**
 * Wraps an SDK exception into a `StorageUnavailableError` (503, retry later)
 * or a `StorageError` (500) naming what was attempted, so that callers never
 * see SDK exceptions.
 */
export function storageError(action: string, error: unknown): StorageError | StorageUnavailableError {
  const name = awsErrorName(error);
  if (isAwsUnavailable(error)) return new StorageUnavailableError(`${action} failed: ${name ?? 'unavailable'}`, { cause: error });
  const detail = name === 'ResourceNotFoundException' ? 'it does not exist' : name ?? 'unknown error';
  return new StorageError(`${action} failed: ${detail}`, { cause: error });
}

/**
 * `store` with each of its methods named in `actions` turned into one whose
 * SDK exceptions become storageError(`<action> (table <tableName>)`) where
 * they arise: the stores' callers never see an SDK exception.
 */
export function guardedStore<S extends { [K in keyof S]: (...args: never[]) => Promise<unknown> }>(store: S, tableName: string, actions: { [K in keyof S]: string }): S {
  const guarded = {} as S;
  for (const key of Object.keys(actions) as Array<keyof S>) {
    const fn = store[key] as unknown as (...args: unknown[]) => Promise<unknown>;
    guarded[key] = (async (...args: unknown[]) => {
      try {
        return await fn(...args);
      } catch (error) {
        throw storageError(`${actions[key]} (table ${tableName})`, error);
      }
    }) as unknown as S[typeof key];
  }
  return guarded;
}
