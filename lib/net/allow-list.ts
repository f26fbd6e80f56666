/**
 * `ALLOW_PRIVATE_HOSTS`: a comma-separated list of host names (matched
 * exactly, case-insensitively), IP addresses (any spelling) and CIDR ranges
 * that may be reached although they are not public. Parsed here, apart from
 * the policy, so that the configuration can validate it at cold start.
 */
import { addressGroups, type IpAddress, looksLikeIpv4, parseIpAddress, sharesPrefix } from './ip-address.js';

/** `ALLOW_PRIVATE_HOSTS` parsed: host names matched exactly, addresses and CIDR ranges by prefix. */
export type AllowList = {
  names: ReadonlySet<string>;
  ranges: ReadonlyArray<{ family: 4 | 6; groups: number[]; bits: number }>;
};

// LDH labels (underscores tolerated: some internal names carry them), optional trailing dot.
const HOST_NAME = /^(?=.{1,253}\.?$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$/;

/** Lower case, without brackets and without the trailing dot of a fully qualified name. */
export function normalizeHost(host: string): string {
  let text = host.trim().toLowerCase();
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  if (text.endsWith('.') && !text.includes(':')) text = text.slice(0, -1);
  return text;
}

type ParsedEntry =
  | { kind: 'name'; name: string }
  | { kind: 'range'; family: 4 | 6; groups: number[]; bits: number }
  | { kind: 'invalid'; problem: string };

function parseEntry(entry: string): ParsedEntry {
  const text = entry.trim();
  const slash = text.indexOf('/');
  if (slash !== -1) {
    const ip = parseIpAddress(text.slice(0, slash));
    const bitsText = text.slice(slash + 1);
    if (!ip || !/^\d{1,3}$/.test(bitsText)) return { kind: 'invalid', problem: `"${entry}" is not a CIDR range` };
    const bits = Number(bitsText);
    const max = ip.family === 4 ? 32 : 128;
    if (bits > max) return { kind: 'invalid', problem: `"${entry}" has a prefix longer than ${max} bits` };
    return { kind: 'range', family: ip.family, groups: addressGroups(ip), bits };
  }
  const ip = parseIpAddress(text);
  if (ip) return { kind: 'range', family: ip.family, groups: addressGroups(ip), bits: ip.family === 4 ? 32 : 128 };
  const name = normalizeHost(text);
  if (looksLikeIpv4(name) || !HOST_NAME.test(name)) {
    return { kind: 'invalid', problem: `"${entry}" is not a host name, an IP address or a CIDR range` };
  }
  return { kind: 'name', name };
}

/** Problems with `ALLOW_PRIVATE_HOSTS` entries, one per bad entry (empty when all are valid). */
export function allowListProblems(entries: readonly string[]): string[] {
  return entries.map(parseEntry).flatMap((parsed) => (parsed.kind === 'invalid' ? [parsed.problem] : []));
}

/** Parses `ALLOW_PRIVATE_HOSTS` entries; throws naming every entry that is not a name, an address or a range. */
export function parseAllowList(entries: readonly string[]): AllowList {
  const problems = allowListProblems(entries);
  if (problems.length > 0) throw new Error(`Invalid ALLOW_PRIVATE_HOSTS: ${problems.join('; ')}`);
  const names = new Set<string>();
  const ranges: Array<{ family: 4 | 6; groups: number[]; bits: number }> = [];
  for (const parsed of entries.map(parseEntry)) {
    if (parsed.kind === 'name') names.add(parsed.name);
    else if (parsed.kind === 'range') ranges.push(parsed);
  }
  return { names, ranges };
}

/** True when an address lies in a listed address or range (an IPv4-mapped IPv6 address counts as its IPv4 address). */
export function inAllowedRange(allowList: AllowList, ip: IpAddress): boolean {
  const candidates: IpAddress[] = [ip];
  // An IPv4-mapped address reaches the same host as the IPv4 address: one entry covers both spellings.
  if (ip.embeddedIpv4) candidates.push({ address: ip.embeddedIpv4, family: 4 });
  return candidates.some((candidate) => {
    const groups = addressGroups(candidate);
    return allowList.ranges.some((range) => range.family === candidate.family && sharesPrefix(groups, range.groups, range.bits));
  });
}

