/**
 * IP addresses as the egress policy sees them: every spelling a URL parser or
 * `getaddrinfo` accepts turned into one canonical address, and each address
 * put in the class that decides whether the service may connect to it.
 *
 * Written out rather than built on `net.BlockList` because the decision needs
 * more than membership: IPv6 forms that embed an IPv4 address (mapped,
 * translated, NAT64, 6to4) are judged by the address they embed, and a
 * refusal names its class so that logs and error messages can say why.
 */

/** Why an address may or may not be reached; only `public` is reachable by default. */
export type AddressClass =
  | 'public'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'shared'
  | 'link-local'
  | 'metadata'
  | 'unique-local'
  | 'site-local'
  | 'multicast'
  | 'broadcast'
  | 'documentation'
  | 'benchmark'
  | 'reserved';

/** A parsed address: its canonical text, family, and, for IPv6 forms that carry one, the IPv4 address inside. */
export type IpAddress = {
  address: string;
  family: 4 | 6;
  /** The IPv4 address a mapped, translated or IPv4-compatible IPv6 address stands for (the same host). */
  embeddedIpv4?: string;
};

const DESCRIPTIONS: Record<AddressClass, string> = {
  public: 'a public address',
  unspecified: 'an unspecified address',
  loopback: 'a loopback address',
  private: 'a private address',
  shared: 'a carrier-grade NAT address',
  'link-local': 'a link-local address',
  metadata: 'a cloud metadata address',
  'unique-local': 'a unique-local address',
  'site-local': 'a site-local address',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  documentation: 'a documentation address',
  benchmark: 'a benchmarking address',
  reserved: 'a reserved address',
};

/** "a loopback address" and so on, for messages. */
export function describeAddressClass(addressClass: AddressClass): string {
  return DESCRIPTIONS[addressClass];
}

// ---------------------------------------------------------------------------
// IPv4
// ---------------------------------------------------------------------------

// inet_aton parts: decimal, 0-prefixed octal, 0x-prefixed hex (possibly empty: "0x" is 0).
const IPV4_PART = /^(?:0x[0-9a-f]*|0[0-7]*|[1-9][0-9]*)$/i;
const NUMERIC_PART = /^(?:0x[0-9a-f]*|[0-9]+)$/i;

function ipv4Part(part: string): number | undefined {
  if (!IPV4_PART.test(part)) return undefined;
  if (/^0x/i.test(part)) return part.length === 2 ? 0 : Number.parseInt(part.slice(2), 16);
  if (part.length > 1 && part.startsWith('0')) return Number.parseInt(part, 8);
  return Number(part);
}

/**
 * Parses IPv4 in every spelling `inet_aton` and the WHATWG URL parser accept:
 * `127.0.0.1`, `2130706433`, `0x7f000001`, `0177.0.0.1`, `127.1`, `0x7f.1`,
 * with one trailing dot. Returns the address as a 32-bit number.
 */
function parseIpv4Number(text: string): number | undefined {
  const parts = text.endsWith('.') ? text.slice(0, -1).split('.') : text.split('.');
  if (parts.length === 0 || parts.length > 4 || parts.some((p) => p === '')) return undefined;
  const values: number[] = [];
  for (const part of parts) {
    const value = ipv4Part(part);
    if (value === undefined || !Number.isFinite(value)) return undefined;
    values.push(value);
  }
  const last = values.pop() ?? 0;
  if (values.some((v) => v > 255)) return undefined;
  if (last >= 2 ** (8 * (4 - values.length))) return undefined;
  let result = 0;
  for (const [index, value] of values.entries()) result += value * 2 ** (8 * (3 - index));
  return result + last;
}

function ipv4Text(value: number): string {
  return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join('.');
}

/**
 * True when a host name is made of numeric parts only, so that resolvers would
 * read it as an IPv4 address (or fail): it is then judged as one, never as a name.
 */
export function looksLikeIpv4(host: string): boolean {
  const trimmed = host.endsWith('.') ? host.slice(0, -1) : host;
  const parts = trimmed.split('.');
  return parts.length > 0 && parts.length <= 4 && parts.every((p) => NUMERIC_PART.test(p));
}

type Ipv4Range = readonly [base: string, prefix: number, addressClass: AddressClass];

// Most specific first: the first match decides. IANA IPv4 special-purpose registry,
// plus the metadata services a cloud function can reach.
const IPV4_RANGES: readonly Ipv4Range[] = [
  ['169.254.169.254', 32, 'metadata'], // EC2 instance metadata (IMDS)
  ['169.254.170.2', 32, 'metadata'], // ECS task metadata and credentials
  ['169.254.170.23', 32, 'metadata'], // EKS Pod Identity credentials
  ['169.254.169.253', 32, 'metadata'], // Amazon-provided DNS
  ['169.254.169.123', 32, 'metadata'], // Amazon Time Sync
  ['255.255.255.255', 32, 'broadcast'],
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'shared'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmark'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

const IPV4_TABLE = IPV4_RANGES.map(([base, prefix, addressClass]) => {
  const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  return { base: (parseIpv4Number(base) ?? 0) & mask, mask, addressClass };
});

function classifyIpv4(value: number): AddressClass {
  for (const range of IPV4_TABLE) {
    if (((value & range.mask) >>> 0) === range.base >>> 0) return range.addressClass;
  }
  return 'public';
}

// ---------------------------------------------------------------------------
// IPv6
// ---------------------------------------------------------------------------

const HEXTET = /^[0-9a-f]{1,4}$/i;

/** Parses IPv6 text (brackets and a zone id allowed) into eight 16-bit groups. */
function parseIpv6Groups(input: string): number[] | undefined {
  let text = input.startsWith('[') && input.endsWith(']') ? input.slice(1, -1) : input;
  const zone = text.indexOf('%');
  if (zone !== -1) text = text.slice(0, zone);
  if (!text.includes(':')) return undefined;
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const toGroups = (part: string): number[] | undefined => {
    if (part === '') return [];
    const pieces = part.split(':');
    const groups: number[] = [];
    for (const [index, piece] of pieces.entries()) {
      if (index === pieces.length - 1 && piece.includes('.')) {
        // A trailing dotted quad, strictly four decimal parts as RFC 4291 writes it.
        if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(piece)) return undefined;
        const octets = piece.split('.').map(Number);
        if (octets.some((o) => o > 255)) return undefined;
        groups.push(((octets[0] ?? 0) << 8) | (octets[1] ?? 0), ((octets[2] ?? 0) << 8) | (octets[3] ?? 0));
      } else {
        if (!HEXTET.test(piece)) return undefined;
        groups.push(Number.parseInt(piece, 16));
      }
    }
    return groups;
  };
  const head = toGroups(halves[0] ?? '');
  const tail = halves.length === 2 ? toGroups(halves[1] ?? '') : [];
  if (!head || !tail) return undefined;
  if (halves.length === 1) return head.length === 8 ? head : undefined;
  const missing = 8 - head.length - tail.length;
  if (missing < 1) return undefined;
  return [...head, ...new Array<number>(missing).fill(0), ...tail];
}

/** RFC 5952 text: lower case, the longest run of zero groups (two or more) as `::`. */
function ipv6Text(groups: readonly number[]): string {
  let bestStart = -1;
  let bestLength = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i += 1;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j += 1;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestLength < 2) return hex.join(':');
  const head = hex.slice(0, bestStart).join(':');
  const tail = hex.slice(bestStart + bestLength).join(':');
  return `${head}::${tail}`;
}

const embedded = (groups: readonly number[], high: number): number =>
  (((groups[high] ?? 0) << 16) >>> 0) + (groups[high + 1] ?? 0);

/** Equality of the first `bits` bits of two group arrays. */
function inPrefix(groups: readonly number[], prefix: readonly number[], bits: number): boolean {
  for (let i = 0; i < 8 && bits > 0; i += 1, bits -= 16) {
    const mask = bits >= 16 ? 0xffff : (0xffff << (16 - bits)) & 0xffff;
    if (((groups[i] ?? 0) & mask) !== ((prefix[i] ?? 0) & mask)) return false;
  }
  return true;
}

const group6 = (text: string): number[] => parseIpv6Groups(text) ?? [];

type Ipv6Range = readonly [prefix: number[], bits: number, addressClass: AddressClass];

// After the embedded-IPv4 forms are handled; the first match decides.
const IPV6_RANGES: readonly Ipv6Range[] = [
  [group6('fd00:ec2::254'), 128, 'metadata'], // EC2 instance metadata over IPv6
  [group6('fd00:ec2::23'), 128, 'metadata'], // EKS Pod Identity over IPv6
  [group6('fd00:ec2::253'), 128, 'metadata'], // Amazon-provided DNS over IPv6
  [group6('fd00:ec2::123'), 128, 'metadata'], // Amazon Time Sync over IPv6
  [group6('::'), 128, 'unspecified'],
  [group6('::1'), 128, 'loopback'],
  [group6('64:ff9b:1::'), 48, 'private'], // local-use NAT64 (RFC 8215): a site's own translator
  [group6('::'), 8, 'reserved'], // IPv4-compatible and other IETF-reserved forms
  [group6('100::'), 64, 'reserved'], // discard-only
  [group6('2001::'), 23, 'reserved'], // IETF protocol assignments, Teredo, ORCHID
  [group6('2001:db8::'), 32, 'documentation'],
  [group6('3fff::'), 20, 'documentation'],
  [group6('5f00::'), 16, 'reserved'], // SRv6 SIDs
  [group6('fc00::'), 7, 'unique-local'],
  [group6('fe80::'), 10, 'link-local'],
  [group6('fec0::'), 10, 'site-local'],
  [group6('ff00::'), 8, 'multicast'],
];

function classifyIpv6(groups: readonly number[]): AddressClass {
  // IPv4-mapped (::ffff:a.b.c.d) and IPv4-translated (::ffff:0:a.b.c.d) reach the IPv4 host.
  if (inPrefix(groups, group6('::ffff:0:0'), 96) || inPrefix(groups, group6('::ffff:0:0:0'), 96)) {
    return classifyIpv4(embedded(groups, 6));
  }
  // NAT64 well-known prefix (64:ff9b::/96): a translator connects to the IPv4 address inside.
  if (inPrefix(groups, group6('64:ff9b::'), 96)) return classifyIpv4(embedded(groups, 6));
  // 6to4 (2002::/16): the relay delivers to the IPv4 address in bits 16–47.
  if (inPrefix(groups, group6('2002::'), 16)) return classifyIpv4(embedded(groups, 1));
  // IPv4-compatible (::a.b.c.d, deprecated): reserved either way, named after the host it points at when that says more.
  if (inPrefix(groups, group6('::'), 96) && embedded(groups, 6) > 1) {
    const inner = classifyIpv4(embedded(groups, 6));
    return inner === 'public' ? 'reserved' : inner;
  }
  for (const [prefix, bits, addressClass] of IPV6_RANGES) {
    if (inPrefix(groups, prefix, bits)) return addressClass;
  }
  // Only 2000::/3 is global unicast; anything else is unassigned.
  return inPrefix(groups, group6('2000::'), 3) ? 'public' : 'reserved';
}

// ---------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------

/**
 * Reads a host (URL host name, CONNECT authority host, resolver answer) as an
 * IP address in any accepted spelling; undefined when it is a name. IPv6 may
 * come with brackets or a zone id; the result is canonical either way.
 */
export function parseIpAddress(host: string): IpAddress | undefined {
  const text = host.trim().toLowerCase();
  if (text === '') return undefined;
  if (text.includes(':')) {
    const groups = parseIpv6Groups(text);
    if (!groups) return undefined;
    const isMapped = inPrefix(groups, group6('::ffff:0:0'), 96) || inPrefix(groups, group6('::ffff:0:0:0'), 96);
    const isCompatible = inPrefix(groups, group6('::'), 96) && embedded(groups, 6) > 1;
    return {
      address: ipv6Text(groups),
      family: 6,
      ...(isMapped || isCompatible ? { embeddedIpv4: ipv4Text(embedded(groups, 6)) } : {}),
    };
  }
  if (!looksLikeIpv4(text)) return undefined;
  const value = parseIpv4Number(text);
  return value === undefined ? undefined : { address: ipv4Text(value), family: 4 };
}

/** The class of an IP address (any spelling); undefined when the text is not an address. */
export function classifyAddress(host: string): AddressClass | undefined {
  const text = host.trim().toLowerCase();
  if (text.includes(':')) {
    const groups = parseIpv6Groups(text);
    return groups ? classifyIpv6(groups) : undefined;
  }
  if (!looksLikeIpv4(text)) return undefined;
  const value = parseIpv4Number(text);
  return value === undefined ? undefined : classifyIpv4(value);
}

/** Bits of an address for prefix matching: IPv4 as 32, IPv6 as 128 (as eight groups). */
export function addressGroups(ip: IpAddress): number[] {
  if (ip.family === 6) return parseIpv6Groups(ip.address) ?? [];
  const value = parseIpv4Number(ip.address) ?? 0;
  return [value >>> 16, value & 0xffff];
}

/** True when the first `bits` bits of two addresses of one family agree. */
export function sharesPrefix(a: readonly number[], b: readonly number[], bits: number): boolean {
  return inPrefix(a, b, bits);
}
