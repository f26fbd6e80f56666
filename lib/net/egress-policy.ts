/**
 * The one egress policy (decisions.md, "Network safety"): the service reaches
 * out on a caller's behalf only over http(s) and only to public unicast
 * addresses, except for what `ALLOW_PRIVATE_HOSTS` names. Page navigation and
 * subresources (through the egress proxy), the webhook call and the pre-signed
 * upload (connected through `egressLookup`) and the up-front URL checks all judge with
 * the functions here, so they cannot disagree.
 */
import { type AllowList, inAllowedRange, normalizeHost, parseAllowList } from './allow-list.js';
import { type AddressClass, classifyAddress, describeAddressClass, type IpAddress, looksLikeIpv4, parseIpAddress } from './ip-address.js';

/** What the policy says about a host before any DNS lookup. */
export type HostDecision =
  /** An IP literal (any spelling) that may be reached. */
  | { kind: 'address'; address: IpAddress }
  /**
   * A name: resolve it, then judge every address. `listed`: named in ALLOW_PRIVATE_HOSTS, so any address is
   * accepted. `loopback`: a localhost name, which resolves to loopback without DNS (RFC 6761), as in Chromium.
   */
  | { kind: 'name'; name: string; listed: boolean; loopback: boolean }
  | { kind: 'refused'; reason: string; addressClass?: AddressClass };

/** What the policy says about one address a name resolved to (or a literal). */
export type AddressDecision = { allowed: true } | { allowed: false; addressClass: AddressClass };

export type EgressPolicy = {
  allowList: AllowList;
  /** Judges a URL host or CONNECT authority host (brackets allowed) before any lookup. */
  judgeHost(host: string): HostDecision;
  /** Judges one resolved address. */
  judgeAddress(address: IpAddress): AddressDecision;
};

/**
 * Names that resolve to the machine itself without asking DNS (RFC 6761):
 * Chromium and many resolvers answer them with loopback, so they are refused
 * by name, before anything could resolve them.
 */
function isLocalhostName(name: string): boolean {
  return name === 'localhost' || name.endsWith('.localhost') || name === 'localhost.localdomain';
}

/** Creates the policy for an allow list (`ALLOW_PRIVATE_HOSTS` entries). */
export function createEgressPolicy(options: { allowPrivateHosts?: readonly string[] } = {}): EgressPolicy {
  const allowList = parseAllowList(options.allowPrivateHosts ?? []);

  const judgeAddress = (ip: IpAddress): AddressDecision => {
    const addressClass = classifyAddress(ip.address) ?? 'reserved';
    if (addressClass === 'public' || inAllowedRange(allowList, ip)) return { allowed: true };
    return { allowed: false, addressClass };
  };

  return {
    allowList,
    judgeAddress,
    judgeHost(host) {
      const name = normalizeHost(host);
      if (name === '') return { kind: 'refused', reason: 'The host is empty' };
      const ip = parseIpAddress(name);
      if (ip) {
        const decision = judgeAddress(ip);
        if (decision.allowed) return { kind: 'address', address: ip };
        return {
          kind: 'refused',
          reason: `${ip.address} is ${describeAddressClass(decision.addressClass)}`,
          addressClass: decision.addressClass,
        };
      }
      // All-numeric names that are not a valid address: resolvers disagree on them, so none is tried.
      if (looksLikeIpv4(name)) return { kind: 'refused', reason: `${name} is not a valid IP address`, addressClass: 'reserved' };
      const loopback = isLocalhostName(name);
      // Listing `localhost` covers its subdomains, as RFC 6761 makes them one name.
      const listed = allowList.names.has(name) || (loopback && allowList.names.has('localhost'));
      if (!listed && loopback) {
        return { kind: 'refused', reason: `${name} is the service's own machine`, addressClass: 'loopback' };
      }
      return { kind: 'name', name, listed, loopback };
    },
  };
}

let processPolicy: EgressPolicy | undefined;

/**
 * Sets the policy of this process, once its configuration is read (the
 * container's dependencies do it from `ALLOW_PRIVATE_HOSTS`): the checks
 * that cannot be handed a policy (the request schemas) judge with it.
 */
export function useEgressPolicy(policy: EgressPolicy): void {
  processPolicy = policy;
}

/** The policy of this process: what `useEgressPolicy` set, else the strict one (no private host allowed). */
export function processEgressPolicy(): EgressPolicy {
  processPolicy ??= createEgressPolicy();
  return processPolicy;
}

/**
 * The up-front check of a URL the service will fetch or call: the reason it
 * is refused when its host is a literal address (in any spelling) or a name
 * the policy refuses without DNS (`localhost`); undefined otherwise, including
 * for names that need a lookup, which are judged when the connection is made.
 */
export function upFrontRefusal(url: string, policy: EgressPolicy = processEgressPolicy()): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return undefined;
  const decision = policy.judgeHost(parsed.hostname);
  return decision.kind === 'refused' ? decision.reason : undefined;
}
