/**
 * Resolve, check, pin: a host is resolved once, every address it resolved to
 * is judged, and the caller connects to one of exactly those addresses. No
 * second lookup happens between the check and the connection, so a DNS
 * answer that changes in between (DNS rebinding) cannot redirect it.
 */
import { lookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import { type EgressPolicy, processEgressPolicy } from './egress-policy.js';
import { EgressRefusedError } from './errors.js';
import { parseIpAddress } from './ip-address.js';

/** The one thing a caller is told about a name refused for what it resolves to. */
function notPublic(name: string): string {
  return `${name} does not resolve to a public address`;
}

/** One address a name resolved to. */
export type ResolvedAddress = { address: string; family: 4 | 6 };

/** Resolves a host name to its addresses (injectable: tests play DNS rebinding with it). */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

export type ResolveEgressOptions = { policy?: EgressPolicy; resolver?: HostResolver };

/** How long a checked answer of the system resolver is reused: one page opens many connections to few hosts. */
const CACHE_TTL_MS = 10_000;
const CACHE_ENTRIES = 500;

const cache = new Map<string, { addresses: ResolvedAddress[]; until: number }>();
const inFlight = new Map<string, Promise<ResolvedAddress[]>>();

async function lookupAll(hostname: string): Promise<ResolvedAddress[]> {
  const answers = await lookup(hostname, { all: true, verbatim: true });
  return answers.map((answer) => ({ address: answer.address, family: answer.family === 6 ? 6 : 4 }));
}

/**
 * The system resolver (`getaddrinfo`, so /etc/hosts counts) with a short cache
 * and one lookup in flight per name. Caching is safe here: what is cached is
 * what gets checked and connected to; it only spares repeated lookups.
 */
export const systemResolver: HostResolver = (hostname) => {
  const cached = cache.get(hostname);
  if (cached && cached.until > Date.now()) return Promise.resolve(cached.addresses);
  const pending = inFlight.get(hostname);
  if (pending) return pending;
  const started = lookupAll(hostname)
    .then((addresses) => {
      cache.delete(hostname);
      cache.set(hostname, { addresses, until: Date.now() + CACHE_TTL_MS });
      if (cache.size > CACHE_ENTRIES) cache.delete(cache.keys().next().value as string);
      return addresses;
    })
    .finally(() => inFlight.delete(hostname));
  inFlight.set(hostname, started);
  return started;
};

/**
 * Resolves a host for a connection the service makes on a caller's behalf
 * and returns the addresses it may connect to (at least one, in resolver
 * order). Throws `EgressRefusedError` when the host or any address it
 * resolves to is refused: a name with one private answer among public ones
 * is refused whole, as a client could be steered to either. Lookup failures
 * (no such name) are thrown as the resolver threw them.
 */
export async function resolveEgress(host: string, options: ResolveEgressOptions = {}): Promise<ResolvedAddress[]> {
  const policy = options.policy ?? processEgressPolicy();
  const decision = policy.judgeHost(host);
  if (decision.kind === 'refused') {
    throw new EgressRefusedError(host, decision.reason, decision.addressClass ? { addressClass: decision.addressClass } : {});
  }
  if (decision.kind === 'address') return [{ address: decision.address.address, family: decision.address.family }];

  // Allowed localhost names answer as Chromium answers them, whatever /etc/hosts or DNS would say.
  if (decision.loopback) return [{ address: '127.0.0.1', family: 4 }, { address: '::1', family: 6 }];
  const answers = await (options.resolver ?? systemResolver)(decision.name);
  const addresses: ResolvedAddress[] = [];
  for (const answer of answers) {
    const ip = parseIpAddress(answer.address);
    if (!ip) {
      throw new EgressRefusedError(decision.name, notPublic(decision.name), { addressClass: 'reserved' });
    }
    if (!decision.listed) {
      const verdict = policy.judgeAddress(ip);
      if (!verdict.allowed) {
        // Neither the address nor its class goes into the message ("resolves to a loopback address" would let a
        // caller map internal DNS names); the class travels on the error for the server-side log only.
        throw new EgressRefusedError(decision.name, notPublic(decision.name), { addressClass: verdict.addressClass });
      }
    }
    addresses.push({ address: ip.address, family: ip.family });
  }
  if (addresses.length === 0) {
    throw Object.assign(new Error(`${decision.name} has no addresses`), { code: 'ENOTFOUND', hostname: decision.name });
  }
  return addresses;
}

/**
 * A `lookup` for `net.connect`, `http.request` or `https.request` that answers
 * only with addresses already checked, so the connection goes where the check
 * looked. With several addresses, Node tries them in turn (autoSelectFamily).
 */
export function pinnedLookup(addresses: readonly ResolvedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const family = typeof options === 'object' && options ? options.family : undefined;
    const usable = family === 4 || family === 6 ? addresses.filter((a) => a.family === family) : [...addresses];
    const list = usable.length > 0 ? usable : [...addresses];
    const first = list[0] as ResolvedAddress;
    if (typeof options === 'object' && options?.all) {
      (callback as unknown as (err: null, addresses: ResolvedAddress[]) => void)(null, list);
    } else {
      callback(null, first.address, first.family);
    }
  };
}

/**
 * Resolves and checks a host for one outbound call made with `node:http(s)`
 * and returns the `lookup` to pass to `request()`: the connection then goes
 * to a checked address, and TLS still verifies the host name. Throws
 * `EgressRefusedError` for a refused host (IP literals included, which no
 * lookup hook would see), or the resolver's error.
 */
export async function egressLookup(host: string, options: ResolveEgressOptions = {}): Promise<LookupFunction> {
  return pinnedLookup(await resolveEgress(host, options));
}
