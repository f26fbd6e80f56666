import type { AddressClass } from './ip-address.js';

/**
 * A destination the egress policy refuses (decisions.md, "Network safety").
 * Raised where the connection would be made: by the proxy (which answers 403),
 * the outbound lookup (which fails the call), or the up-front URL check. The
 * message is safe to show to the caller: it names the host and, for an
 * address literal the caller wrote, its class; for a name, only that it does
 * not resolve to a public address (never the address or its class, which
 * would map internal DNS). `addressClass` is for the server-side log.
 */
export class EgressRefusedError extends Error {
  readonly host: string;
  readonly addressClass: AddressClass | undefined;

  constructor(host: string, reason: string, options: { addressClass?: AddressClass; cause?: unknown } = {}) {
    super(reason, { cause: options.cause });
    this.name = 'EgressRefusedError';
    this.host = host;
    this.addressClass = options.addressClass;
  }
}
