/**
 * Outbound calls the service makes on a caller's behalf (the webhook, the
 * upload to a pre-signed URL) under the egress policy: every new connection,
 * including each redirect hop and IP-literal hosts that no lookup hook would
 * see, is resolved once, checked, and made to one of the checked addresses.
 * TLS still verifies the certificate against the host name.
 */
import { isIP } from 'node:net';
import { Agent, buildConnector, fetch as undiciFetch } from 'undici';
import type { EgressPolicy } from './egress-policy.js';
import { type HostResolver, resolveEgress } from './resolve-egress.js';

export type EgressDispatcherOptions = {
  policy?: EgressPolicy;
  resolver?: HostResolver;
  /** How long connecting (TCP and TLS) may take. */
  connectTimeoutMs?: number;
};

/** `fetch` init of `egressFetch`: the standard one; the dispatcher is the egress one. */
export type EgressFetchInit = Omit<RequestInit, 'dispatcher'>;

/**
 * An undici dispatcher (for `fetch(url, { dispatcher })` of undici) whose
 * connections obey the egress policy. A refused host fails the request with
 * `EgressRefusedError` as the `cause` of fetch's TypeError.
 */
export function createEgressDispatcher(options: EgressDispatcherOptions = {}): Agent {
  const { policy, resolver } = options;
  const base = buildConnector({ timeout: options.connectTimeoutMs ?? 10_000 });
  const connector: buildConnector.connector = (connectOptions, callback) => {
    const hostname = connectOptions.hostname;
    const servername = connectOptions.servername || (isIP(hostname.replace(/^\[|\]$/g, '')) === 0 ? hostname : undefined);
    resolveEgress(hostname, { ...(policy ? { policy } : {}), ...(resolver ? { resolver } : {}) }).then(
      (addresses) => {
        // Each checked address in turn: one that refuses (an IPv6 address without a route) is not the end.
        const attempt = (index: number, lastError: Error | null) => {
          const next = addresses[index];
          if (!next) {
            callback(lastError ?? new Error(`${hostname} could not be reached`), null);
            return;
          }
          base({ ...connectOptions, hostname: next.address, ...(servername ? { servername } : {}) }, (error, socket) => {
            if (error) attempt(index + 1, error);
            else callback(null, socket as NonNullable<typeof socket>);
          });
        };
        attempt(0, null);
      },
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), null),
    );
  };
  return new Agent({ connect: connector });
}

/** A `fetch` restricted by the egress policy. */
export type EgressFetch = (input: string | URL, init?: EgressFetchInit) => Promise<Response>;

/** A `fetch` whose connections obey a given policy and resolver (tests; anything that needs its own). */
export function createEgressFetch(options: EgressDispatcherOptions = {}): EgressFetch {
  const dispatcher = createEgressDispatcher(options);
  // undici's Response is the same WHATWG class as the global one in all but name.
  return (input, init = {}) => undiciFetch(input, { ...(init as object), dispatcher }) as unknown as Promise<Response>;
}

let shared: EgressFetch | undefined;

/**
 * `fetch` for the webhook call and the pre-signed upload: the process's
 * egress policy applies to every connection it opens, redirects included.
 */
export function egressFetch(input: string | URL, init: EgressFetchInit = {}): Promise<Response> {
  shared ??= createEgressFetch();
  return shared(input, init);
}
