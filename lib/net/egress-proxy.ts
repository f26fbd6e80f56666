/**
 * The filtering forward proxy Chromium is launched behind (as Gotenberg does):
 * every request a page makes that reaches the network — navigation,
 * subresources, fetch/XHR, beacons, workers, WebSockets, redirects at every
 * hop — arrives here as an absolute-form HTTP request or a CONNECT tunnel and
 * is judged by the egress policy before any connection leaves the machine.
 * CDP request interception cannot do this alone: it never sees WebSockets or
 * the traffic of workers.
 *
 * The proxy resolves the host once, checks every address and connects to one
 * of those addresses (see resolve-egress.ts), so a DNS answer that changes
 * after the check cannot redirect the connection. A refusal answers 403 with
 * a plain-text reason and the `x-docrender-egress: refused` header; a host
 * that cannot be reached answers 502 with `x-docrender-egress: unreachable`.
 * Both are counted and kept for a minute, so the renderer can explain a failed
 * navigation. Nothing of a request's path, query or body is recorded.
 */
import { Agent, createServer, type IncomingMessage, request as httpRequest, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { normalizeHost } from './allow-list.js';
import { type EgressPolicy, processEgressPolicy } from './egress-policy.js';
import { EgressRefusedError } from './errors.js';
import { HOP_BY_HOP_HEADERS } from './hop-by-hop-headers.js';
import { type AddressClass, classifyAddress } from './ip-address.js';
import { type HostResolver, pinnedLookup, resolveEgress, type ResolvedAddress } from './resolve-egress.js';

/** Response header that marks an answer as the proxy's own, not the site's. */
export const EGRESS_HEADER = 'x-docrender-egress';

export type EgressProxyOptions = {
  policy?: EgressPolicy;
  resolver?: HostResolver;
  /**
   * Most client connections at once; more are dropped. Chromium itself opens
   * at most 32 per proxy, so the default leaves room for several browsers.
   */
  maxConnections?: number;
  /** How long connecting to a destination may take. */
  connectTimeoutMs?: number;
  /** A connection (either side) idle this long is closed. */
  idleTimeoutMs?: number;
  /** Called for every refusal and every destination that could not be reached (for logs). */
  onEvent?: (event: EgressEvent) => void;
};

/** A refused or failed destination: host and port only, never the path, query or content. */
export type EgressEvent = {
  outcome: 'refused' | 'unreachable';
  kind: 'http' | 'connect' | 'upgrade';
  host: string;
  port: number;
  reason: string;
  /** Chromium's name for the failure (`ERR_CONNECTION_REFUSED`…; `ERR_ACCESS_DENIED` for a refusal), for error messages that match direct loads. */
  netError: string;
  addressClass?: AddressClass;
  at: number;
};

export type EgressProxyStats = {
  /** Plain HTTP requests forwarded. */
  forwarded: number;
  /** CONNECT tunnels (https, wss) and upgrades opened. */
  tunnelled: number;
  refused: number;
  unreachable: number;
  /** Client connections open now. */
  active: number;
};

export type EgressProxy = {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** The Chromium flags that send every request through this proxy, loopback included. */
  chromiumArgs: readonly string[];
  stats(): EgressProxyStats;
  /** The last refusal or failure for a URL's host and port within the last minute. */
  failureFor(url: string): EgressEvent | undefined;
  /** The latest events, oldest first (at most 100). */
  recentEvents(): readonly EgressEvent[];
  close(): Promise<void>;
};

const DEFAULTS = { maxConnections: 256, connectTimeoutMs: 10_000, idleTimeoutMs: 60_000 };
const RECENT_EVENTS = 100;
const FAILURE_MEMORY_MS = 60_000;
const FAILURE_ENTRIES = 500;

// Hop-by-hop headers (RFC 9110 §7.6.1) and the proxy's own: never forwarded either way.
const HOP_BY_HOP = new Set([...HOP_BY_HOP_HEADERS, 'proxy-connection', 'proxy-authorization', 'proxy-authenticate']);

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443, 'ws:': 80, 'wss:': 443 };

/** Raw header pairs without hop-by-hop headers and those `Connection` names. */
function endToEndHeaders(raw: readonly string[], keep: ReadonlySet<string> = new Set(), drop: readonly string[] = []): string[] {
  const listed = new Set<string>();
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]?.toLowerCase() === 'connection') {
      for (const token of (raw[i + 1] ?? '').split(',')) listed.add(token.trim().toLowerCase());
    }
  }
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] ?? '';
    const lower = name.toLowerCase();
    if (drop.includes(lower) || (!keep.has(lower) && (HOP_BY_HOP.has(lower) || listed.has(lower)))) continue;
    out.push(name, raw[i + 1] ?? '');
  }
  return out;
}

function pairsToObject(raw: readonly string[]): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] ?? '';
    const value = raw[i + 1] ?? '';
    const existing = headers[name];
    if (existing === undefined) headers[name] = value;
    else headers[name] = Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return headers;
}

function parseAuthority(authority: string): { host: string; port: number } | undefined {
  const match = /^(?:\[([0-9a-fA-F:.%]+)\]|([^:[\]/@\s]+)):(\d{1,5})$/.exec(authority);
  if (!match) return undefined;
  const port = Number(match[3]);
  if (port < 1 || port > 65_535) return undefined;
  return { host: match[1] ?? match[2] ?? '', port };
}

function rawResponse(status: number, statusText: string, outcome: string, body: string): string {
  const length = Buffer.byteLength(body);
  return `HTTP/1.1 ${status} ${statusText}\r\nContent-Type: text/plain; charset=utf-8\r\n${EGRESS_HEADER}: ${outcome}\r\nContent-Length: ${length}\r\nConnection: close\r\n\r\n${body}`;
}

/** Why a destination could not be reached, in words and as Chromium's error name. */
function failureOf(error: unknown): { reason: string; netError: string } {
  const code = (error as { code?: unknown })?.code;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME') return { reason: 'the host name could not be resolved', netError: 'ERR_NAME_NOT_RESOLVED' };
  if (code === 'ECONNREFUSED') return { reason: 'the server refused the connection', netError: 'ERR_CONNECTION_REFUSED' };
  if (code === 'ETIMEDOUT' || code === 'ECONNTIMEOUT') return { reason: 'the connection timed out', netError: 'ERR_CONNECTION_TIMED_OUT' };
  if (code === 'ECONNRESET') return { reason: 'the connection was reset', netError: 'ERR_CONNECTION_RESET' };
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return { reason: 'the address is unreachable', netError: 'ERR_ADDRESS_UNREACHABLE' };
  return { reason: 'the connection failed', netError: 'ERR_CONNECTION_FAILED' };
}

/**
 * Starts a filtering proxy on 127.0.0.1 (a free port). Use `sharedEgressProxy()`
 * in the service; this is for tests and for a caller that needs its own policy.
 */
export async function startEgressProxy(options: EgressProxyOptions = {}): Promise<EgressProxy> {
  const policy = options.policy ?? processEgressPolicy();
  const resolver = options.resolver;
  const maxConnections = options.maxConnections ?? DEFAULTS.maxConnections;
  const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULTS.connectTimeoutMs;
  const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULTS.idleTimeoutMs;
  const counters = { forwarded: 0, tunnelled: 0, refused: 0, unreachable: 0 };
  const recent: EgressEvent[] = [];
  const failures = new Map<string, EgressEvent>();
  const sockets = new Set<Duplex>();
  let ownPort = 0;

  // Keep-alive towards destinations, bounded like the client side; pooled per
  // host name, and every socket in a pool went to an address checked for that name.
  const upstreamAgent = new Agent({ keepAlive: true, maxSockets: 32, maxTotalSockets: maxConnections, timeout: idleTimeoutMs });

  const track = (socket: Duplex) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };

  const record = (event: Omit<EgressEvent, 'at'>) => {
    const full: EgressEvent = { ...event, at: Date.now() };
    if (full.outcome === 'refused') counters.refused += 1;
    else counters.unreachable += 1;
    recent.push(full);
    if (recent.length > RECENT_EVENTS) recent.shift();
    const key = `${normalizeHost(full.host)}:${full.port}`;
    failures.delete(key);
    failures.set(key, full);
    if (failures.size > FAILURE_ENTRIES) failures.delete(failures.keys().next().value as string);
    try {
      options.onEvent?.(full);
    } catch {
      // A logging hook must not break the proxy.
    }
  };

  /** Resolves and checks, or records why not; undefined means the caller has answered already. */
  const admit = async (
    kind: EgressEvent['kind'],
    host: string,
    port: number,
    refuse: (status: number, outcome: 'refused' | 'unreachable', text: string) => void,
  ): Promise<ResolvedAddress[] | undefined> => {
    try {
      const addresses = await resolveEgress(host, resolver ? { policy, resolver } : { policy });
      // With loopback allowed (local testing), a page could aim the proxy at itself and loop.
      if (port === ownPort && addresses.some((a) => classifyAddress(a.address) === 'loopback')) {
        throw new EgressRefusedError(host, 'the egress proxy itself may not be reached', { addressClass: 'loopback' });
      }
      return addresses;
    } catch (error) {
      if (error instanceof EgressRefusedError) {
        record({ outcome: 'refused', kind, host, port, reason: error.message, netError: 'ERR_ACCESS_DENIED', ...(error.addressClass ? { addressClass: error.addressClass } : {}) });
        refuse(403, 'refused', `Refused by the docrender egress policy: ${error.message}. Only public addresses may be reached.\n`);
      } else {
        const { reason, netError } = failureOf(error);
        record({ outcome: 'unreachable', kind, host, port, reason, netError });
        refuse(502, 'unreachable', `${host}:${port} could not be reached: ${reason}.\n`);
      }
      return undefined;
    }
  };

  const handleHttp = (req: IncomingMessage, res: ServerResponse) => {
    const answer = (status: number, outcome: string, text: string) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', [EGRESS_HEADER]: outcome, connection: 'close' });
      res.end(text);
    };
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      answer(400, 'invalid', 'This is the docrender egress proxy: only absolute-form http:// requests are accepted.\n');
      return;
    }
    if (target.protocol !== 'http:') {
      answer(400, 'invalid', 'Only http:// URLs are forwarded; https goes through CONNECT.\n');
      return;
    }
    const host = target.hostname;
    const port = Number(target.port || 80);
    void admit('http', host, port, answer).then((addresses) => {
      if (!addresses || res.destroyed) return;
      const headers = endToEndHeaders(req.rawHeaders);
      if (!headers.some((h, i) => i % 2 === 0 && h.toLowerCase() === 'host')) headers.push('Host', target.host);
      const upstream = httpRequest({
        host: normalizeHost(host),
        port,
        method: req.method,
        path: `${target.pathname}${target.search}`,
        headers: pairsToObject(headers),
        setHost: false,
        agent: upstreamAgent,
        lookup: pinnedLookup(addresses),
      });
      const connectTimer = setTimeout(() => upstream.destroy(Object.assign(new Error('connect timeout'), { code: 'ETIMEDOUT' })), connectTimeoutMs);
      upstream.once('socket', (socket: Socket) => {
        if (!socket.connecting) clearTimeout(connectTimer);
        else socket.once('connect', () => clearTimeout(connectTimer));
      });
      upstream.on('response', (upstreamRes) => {
        clearTimeout(connectTimer);
        counters.forwarded += 1;
        // The proxy's own marker never comes from a site: a page cannot pass its answer off as a refusal.
        res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.statusMessage, endToEndHeaders(upstreamRes.rawHeaders, new Set(), [EGRESS_HEADER]));
        upstreamRes.pipe(res);
        upstreamRes.on('error', () => res.destroy());
      });
      upstream.on('error', (error) => {
        clearTimeout(connectTimer);
        if (res.headersSent) {
          res.destroy();
          return;
        }
        const { reason, netError } = failureOf(error);
        record({ outcome: 'unreachable', kind: 'http', host, port, reason, netError });
        answer(502, 'unreachable', `${host}:${port} could not be reached: ${reason}.\n`);
      });
      res.once('close', () => {
        clearTimeout(connectTimer);
        if (!res.writableFinished) upstream.destroy();
      });
      req.pipe(upstream);
    });
  };

  /** Connects to a checked destination and splices the two sockets together. */
  const tunnel = (
    client: Duplex,
    host: string,
    port: number,
    addresses: ResolvedAddress[],
    kind: EgressEvent['kind'],
    onConnected: (upstream: Socket) => void,
  ) => {
    const upstream = connect({ host: normalizeHost(host), port, lookup: pinnedLookup(addresses), noDelay: true });
    track(upstream);
    const connectTimer = setTimeout(() => upstream.destroy(Object.assign(new Error('connect timeout'), { code: 'ETIMEDOUT' })), connectTimeoutMs);
    let connected = false;
    upstream.once('connect', () => {
      clearTimeout(connectTimer);
      connected = true;
      counters.tunnelled += 1;
      upstream.setTimeout(idleTimeoutMs, () => upstream.destroy());
      onConnected(upstream);
      client.pipe(upstream);
      upstream.pipe(client);
    });
    upstream.on('error', (error) => {
      clearTimeout(connectTimer);
      if (!connected && client.writable) {
        const { reason, netError } = failureOf(error);
        record({ outcome: 'unreachable', kind, host, port, reason, netError });
        client.end(rawResponse(502, 'Bad Gateway', 'unreachable', `${host}:${port} could not be reached: ${reason}.\n`));
      } else {
        client.destroy();
      }
    });
    // Before the connection is made the client still gets its 502 (written above).
    upstream.once('close', () => {
      if (connected) client.destroy();
    });
    client.once('close', () => upstream.destroy());
    client.on('error', () => upstream.destroy());
  };

  const handleConnect = (req: IncomingMessage, client: Duplex, head: Buffer) => {
    client.on('error', () => client.destroy());
    const authority = parseAuthority(req.url ?? '');
    if (!authority) {
      client.end(rawResponse(400, 'Bad Request', 'invalid', 'CONNECT needs host:port.\n'));
      return;
    }
    const { host, port } = authority;
    const refuse = (status: number, outcome: string, text: string) =>
      client.end(rawResponse(status, status === 403 ? 'Forbidden' : 'Bad Gateway', outcome, text));
    void admit('connect', host, port, refuse).then((addresses) => {
      if (!addresses || client.destroyed) return;
      tunnel(client, host, port, addresses, 'connect', (upstream) => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length > 0) upstream.write(head);
      });
    });
  };

  // A WebSocket sent as an absolute-form request with `Upgrade` (Chromium uses
  // CONNECT instead, other clients may not): checked the same way, then spliced.
  const handleUpgrade = (req: IncomingMessage, client: Duplex, head: Buffer) => {
    client.on('error', () => client.destroy());
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      client.end(rawResponse(400, 'Bad Request', 'invalid', 'Only absolute-form requests are accepted.\n'));
      return;
    }
    if (target.protocol !== 'http:' && target.protocol !== 'ws:') {
      client.end(rawResponse(400, 'Bad Request', 'invalid', 'Only http:// and ws:// upgrades are forwarded.\n'));
      return;
    }
    const host = target.hostname;
    const port = Number(target.port || DEFAULT_PORTS[target.protocol] || 80);
    const refuse = (status: number, outcome: string, text: string) =>
      client.end(rawResponse(status, status === 403 ? 'Forbidden' : 'Bad Gateway', outcome, text));
    void admit('upgrade', host, port, refuse).then((addresses) => {
      if (!addresses || client.destroyed) return;
      const headers = endToEndHeaders(req.rawHeaders, new Set(['upgrade', 'connection']));
      const lines = [`${req.method ?? 'GET'} ${target.pathname}${target.search} HTTP/1.1`];
      for (let i = 0; i < headers.length; i += 2) lines.push(`${headers[i]}: ${headers[i + 1]}`);
      tunnel(client, host, port, addresses, 'upgrade', (upstream) => {
        upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
        if (head.length > 0) upstream.write(head);
      });
    });
  };

  const server = createServer({ noDelay: true, keepAliveTimeout: idleTimeoutMs });
  server.maxConnections = maxConnections;
  server.on('connection', (socket: Socket) => {
    track(socket);
    socket.setTimeout(idleTimeoutMs, () => socket.destroy());
  });
  server.on('request', handleHttp);
  server.on('connect', handleConnect);
  server.on('upgrade', handleUpgrade);
  server.on('clientError', (_error, socket) => socket.destroy());

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  ownPort = typeof address === 'object' && address ? address.port : 0;
  // The proxy serves the browser; it alone must not keep the process alive.
  server.unref();
  const url = `http://127.0.0.1:${ownPort}`;

  return {
    url,
    port: ownPort,
    chromiumArgs: [
      `--proxy-server=${url}`,
      // Chromium sends loopback destinations around any proxy unless told otherwise.
      '--proxy-bypass-list=<-loopback>',
      // WebRTC's UDP (STUN/TURN) would go around the proxy: only proxied TCP is left.
      '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
    ],
    stats: () => ({ ...counters, active: sockets.size }),
    failureFor(target) {
      let parsed: URL;
      try {
        parsed = new URL(target);
      } catch {
        return undefined;
      }
      const port = Number(parsed.port || DEFAULT_PORTS[parsed.protocol] || 0);
      const event = failures.get(`${normalizeHost(parsed.hostname)}:${port}`);
      return event && Date.now() - event.at <= FAILURE_MEMORY_MS ? event : undefined;
    },
    recentEvents: () => [...recent],
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      upstreamAgent.destroy();
      await closed;
    },
  };
}

let shared: Promise<EgressProxy> | undefined;

/**
 * The proxy of this process, started on first use with the process's egress
 * policy (`ALLOW_PRIVATE_HOSTS`). `options` count only on the call that starts it.
 */
export function sharedEgressProxy(options: Omit<EgressProxyOptions, 'policy'> = {}): Promise<EgressProxy> {
  shared ??= startEgressProxy(options).catch((error: unknown) => {
    shared = undefined;
    throw error;
  });
  return shared;
}

/** Closes the shared proxy if it was started (shutdown; tests). */
export async function closeSharedEgressProxy(): Promise<void> {
  const current = shared;
  shared = undefined;
  if (current) await (await current.catch(() => undefined))?.close();
}
