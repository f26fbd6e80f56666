/** A port whose every method is asynchronous: a call can wait for the adapter to load. */
type AsyncPort<T> = { [K in keyof T]: T[K] extends (...args: never[]) => Promise<unknown> ? T[K] : never };

/**
 * The port `T`, whose adapter is built by `load` at its first method call
 * rather than now: a cold start then does not read the adapter's SDK client
 * (S3, SQS) unless a request needs it. Every method of `T` must return a
 * promise (checked by the type), so a caller cannot tell the difference; a
 * load that fails fails that call and is tried again by the next one.
 */
export function loadOnFirstCall<T extends AsyncPort<T>>(load: () => Promise<T>): T {
  let loading: Promise<T> | undefined;
  const adapter = () =>
    (loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    }));
  return new Proxy({} as T, {
    get(_target, name) {
      // Not a method of a port: a promise check (`then`), a symbol (inspection).
      if (typeof name !== 'string' || name === 'then') return undefined;
      return async (...args: unknown[]) => {
        const port = await adapter();
        const method = port[name as keyof T] as unknown;
        if (typeof method !== 'function') throw new TypeError(`${name} is not a method of this port`);
        return (method as (...a: unknown[]) => Promise<unknown>).apply(port, args);
      };
    },
  });
}
