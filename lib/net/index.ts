/**
 * Network safety (decisions.md, "Network safety"): one egress policy for
 * everything the service fetches or calls on a caller's behalf, the filtering
 * proxy Chromium runs behind, and the pinned lookup outbound calls connect through.
 */
export { type AllowList, allowListProblems, normalizeHost, parseAllowList } from './allow-list.js';
export {
  type AddressDecision,
  type EgressPolicy,
  type HostDecision,
  createEgressPolicy,
  processEgressPolicy,
  upFrontRefusal,
  useEgressPolicy,
} from './egress-policy.js';
export {
  EGRESS_HEADER,
  type EgressEvent,
  type EgressProxy,
  type EgressProxyOptions,
  type EgressProxyStats,
  closeSharedEgressProxy,
  sharedEgressProxy,
  startEgressProxy,
} from './egress-proxy.js';
export { EgressRefusedError } from './errors.js';
export { type AddressClass, type IpAddress, classifyAddress, describeAddressClass, parseIpAddress } from './ip-address.js';
export {
  type HostResolver,
  type ResolveEgressOptions,
  type ResolvedAddress,
  egressLookup,
  pinnedLookup,
  resolveEgress,
  systemResolver,
} from './resolve-egress.js';
