import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { LAMBDA_RESPONSE_LIMIT_BYTES } from '../../lib/delivery/raw-response.js';
import type { Invocation, LambdaRuntime } from './lambda-runtime.js';
import { scheduledEvent } from './schedules.js';
import type { LocalFunction } from './service-definition.js';

/** API Gateway's own payload quota: larger requests never reach the function. */
export const API_GATEWAY_MAX_BODY_BYTES = 10 * 1024 * 1024;
/** HTTP APIs give up on an integration after 30 seconds. */
const INTEGRATION_TIMEOUT_MS = 30_000;
/** Local-only endpoint to run any function by hand, e.g. a scheduled one. */
const INVOKE_PREFIX = '/__local/invoke/';

export type HttpApiOptions = {
  functions: LocalFunction[];
  runtime: LambdaRuntime;
  region: string;
  accountId: string;
  /** One line per request (method, path without query, status, time); silent by default. */
  log?: (line: string) => void;
};

export type LocalHttpApi = {
  server: http.Server;
  /** Listens on `host` (loopback by default); port 0 picks a free one. Resolves to the base URL. */
  listen(port: number, host?: string): Promise<string>;
  close(): Promise<void>;
};

type Segment = { kind: 'literal'; text: string } | { kind: 'param'; name: string } | { kind: 'greedy'; name: string };

type CompiledRoute = {
  fn: LocalFunction;
  routeKey: string;
  method: string;
  segments: Segment[];
};

type Reply = { statusCode: number; headers: [string, string][]; body: Buffer };

/**
 * A local API Gateway HTTP API (payload format 2.0) in front of the
 * functions' `httpApi` events: the same routing, event, response mapping and
 * error answers (`{"message":"Not Found"}`, 413, 500) as the real one, with
 * handlers invoked concurrently in this process.
 */
export function createHttpApi(opts: HttpApiOptions): LocalHttpApi {
  const routes = compileRoutes(opts.functions);
  const defaultRoute = opts.functions.find((fn) => fn.httpRoutes.some((route) => route.routeKey === '$default'));
  const log = opts.log ?? (() => undefined);

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const started = Date.now();
    const requestId = randomBytes(12).toString('base64');
    const url = req.url ?? '/';
    const rawPath = url.split('?')[0] ?? '/';
    const method = (req.method ?? 'GET').toUpperCase();
    let reply: Reply;
    try {
      reply = await answer(req, method, url, rawPath, requestId);
    } catch (error) {
      console.error(`[http] ${method} ${rawPath}: ${error instanceof Error ? error.stack : String(error)}`);
      reply = message(500, 'Internal Server Error');
    }
    if (!res.headersSent) {
      res.statusCode = reply.statusCode;
      for (const [name, value] of reply.headers) res.appendHeader(name, value);
      res.setHeader('content-length', reply.body.length);
      res.setHeader('apigw-requestid', requestId);
      res.end(reply.body);
    }
    log(`${method} ${rawPath} ${reply.statusCode} ${Date.now() - started} ms`);
  };

  const answer = async (req: IncomingMessage, method: string, url: string, rawPath: string, requestId: string) => {
    const body = await readBody(req);
    if (rawPath.startsWith(INVOKE_PREFIX)) return invokeByHand(decodeURIComponent(rawPath.slice(INVOKE_PREFIX.length)), method, body);
    const matched = matchRoute(routes, method, rawPath);
    const fn = matched?.route.fn ?? defaultRoute;
    if (!fn) return message(404, 'Not Found');
    if (body === 'too-large') return message(413, 'Request Entity Too Large');
    const event = httpEvent(req, {
      url,
      rawPath,
      method,
      body,
      requestId,
      routeKey: matched?.route.routeKey ?? '$default',
      pathParameters: matched?.pathParameters,
      accountId: opts.accountId,
    });
    if (Buffer.byteLength(JSON.stringify(event)) > LAMBDA_RESPONSE_LIMIT_BYTES) return message(413, 'Request Entity Too Large');
    const outcome = await invokeWithin(fn, event);
    if (outcome === 'integration-timeout') return message(503, 'Service Unavailable');
    if (!outcome.ok) return message(500, 'Internal Server Error');
    return httpReply(outcome.result, fn);
  };

  const invokeWithin = async (fn: LocalFunction, event: unknown): Promise<Invocation | 'integration-timeout'> => {
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<'integration-timeout'>((resolve) => {
      timer = setTimeout(() => resolve('integration-timeout'), INTEGRATION_TIMEOUT_MS);
    });
    try {
      return await Promise.race([opts.runtime.invoke(fn, event), gaveUp]);
    } finally {
      clearTimeout(timer);
    }
  };

  const invokeByHand = async (key: string, method: string, body: Buffer | 'too-large' | undefined): Promise<Reply> => {
    const fn = opts.functions.find((candidate) => candidate.key === key);
    if (!fn || method !== 'POST') return message(404, 'Not Found');
    if (body === 'too-large') return message(413, 'Request Entity Too Large');
    let event: unknown = fn.schedules[0] ? scheduledEvent(fn, fn.schedules[0], opts.region, opts.accountId) : {};
    if (body && body.length > 0) {
      try {
        event = JSON.parse(body.toString('utf8'));
      } catch {
        return json(400, { message: 'The request body must be the JSON event to invoke the function with' });
      }
    }
    const outcome = await opts.runtime.invoke(fn, event);
    if (outcome.ok) return json(200, outcome.result ?? null);
    const error = outcome.error instanceof Error ? outcome.error : new Error(String(outcome.error));
    return json(500, { errorType: error.name, errorMessage: error.message });
  };

  const server = http.createServer((req, res) => void handle(req, res));

  return {
    server,
    async listen(port, host = '127.0.0.1') {
      server.listen(port, host);
      await once(server, 'listening');
      const address = server.address() as AddressInfo;
      return `http://${host}:${address.port}`;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Reads the whole body; past API Gateway's quota it keeps draining but stops buffering. */
async function readBody(req: IncomingMessage): Promise<Buffer | 'too-large' | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= API_GATEWAY_MAX_BODY_BYTES) chunks.push(chunk);
  }
  if (size > API_GATEWAY_MAX_BODY_BYTES) return 'too-large';
  return size === 0 ? undefined : Buffer.concat(chunks);
}

function compileRoutes(functions: LocalFunction[]): CompiledRoute[] {
  return functions.flatMap((fn) =>
    fn.httpRoutes
      .filter((route) => route.routeKey !== '$default')
      .map((route) => ({
        fn,
        routeKey: route.routeKey,
        method: route.method,
        segments: route.path
          .split('/')
          .slice(1)
          .map((text): Segment => {
            const variable = /^\{([^}]+?)(\+)?\}$/.exec(text);
            if (!variable?.[1]) return { kind: 'literal', text };
            return variable[2] ? { kind: 'greedy', name: variable[1] } : { kind: 'param', name: variable[1] };
          }),
      })),
  );
}

/** Literal beats `{param}` beats `{proxy+}`, segment by segment; then a named method beats ANY. */
function specificity(route: CompiledRoute): number[] {
  const rank = { literal: 0, param: 1, greedy: 2 };
  return [...route.segments.map((segment) => rank[segment.kind]), route.method === 'ANY' ? 1 : 0];
}

function compareSpecificity(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i += 1) {
    const difference = (a[i] ?? -1) - (b[i] ?? -1);
    if (difference !== 0) return difference;
  }
  return 0;
}

/** The most specific route matching the request, with its decoded path parameters. */
function matchRoute(routes: CompiledRoute[], method: string, rawPath: string) {
  const parts = rawPath.split('/').slice(1);
  let best: { route: CompiledRoute; pathParameters: Record<string, string> } | undefined;
  for (const route of routes) {
    if (route.method !== 'ANY' && route.method !== method) continue;
    const pathParameters = matchSegments(route.segments, parts);
    if (!pathParameters) continue;
    if (!best || compareSpecificity(specificity(route), specificity(best.route)) < 0) best = { route, pathParameters };
  }
  return best;
}

function matchSegments(segments: Segment[], parts: string[]): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i += 1) {
    const segment = segments[i] as Segment;
    const part = parts[i];
    if (segment.kind === 'greedy') {
      const rest = parts.slice(i).join('/');
      if (rest === '') return undefined;
      params[segment.name] = safeDecode(rest);
      return params;
    }
    if (part === undefined) return undefined;
    if (segment.kind === 'literal' ? part !== segment.text : part === '') return undefined;
    if (segment.kind === 'param') params[segment.name] = safeDecode(part);
  }
  return parts.length === segments.length ? params : undefined;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Content types API Gateway passes as text; every other body arrives base64-encoded. */
function isTextContentType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const type = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  return (
    type.startsWith('text/') ||
    type === 'application/json' ||
    type.endsWith('+json') ||
    type === 'application/xml' ||
    type.endsWith('+xml') ||
    type === 'application/javascript'
  );
}

type EventInput = {
  url: string;
  rawPath: string;
  method: string;
  body: Buffer | undefined;
  requestId: string;
  routeKey: string;
  pathParameters: Record<string, string> | undefined;
  accountId: string;
};

/** The payload 2.0 event API Gateway would send for this request. */
function httpEvent(req: IncomingMessage, input: EventInput): APIGatewayProxyEventV2 {
  const query = input.url.includes('?') ? input.url.slice(input.url.indexOf('?') + 1) : '';
  const sourceIp = (req.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, '');
  const headers: Record<string, string> = {};
  let cookies: string[] = [];
  for (const [name, values] of Object.entries(req.headersDistinct)) {
    if (!values) continue;
    // Payload 2.0 moves cookies out of the headers into their own array.
    if (name === 'cookie') cookies = values.flatMap((value) => value.split(';')).map((c) => c.trim()).filter(Boolean);
    else headers[name] = values.join(',');
  }
  headers['x-forwarded-for'] = headers['x-forwarded-for'] ? `${headers['x-forwarded-for']}, ${sourceIp}` : sourceIp;
  headers['x-forwarded-port'] = String(req.socket.localPort ?? '');
  headers['x-forwarded-proto'] = 'http';
  headers['x-amzn-trace-id'] = `Root=1-${Math.floor(Date.now() / 1000).toString(16)}-${randomBytes(12).toString('hex')}`;
  const host = headers.host ?? '127.0.0.1';
  const now = new Date();
  const isText = isTextContentType(headers['content-type']);
  const event: APIGatewayProxyEventV2 = {
    version: '2.0',
    routeKey: input.routeKey,
    rawPath: input.rawPath,
    rawQueryString: query,
    headers,
    requestContext: {
      accountId: input.accountId,
      apiId: 'local',
      domainName: host,
      domainPrefix: host.split('.')[0] ?? host,
      http: {
        method: input.method,
        path: input.rawPath,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp,
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: input.requestId,
      routeKey: input.routeKey,
      stage: '$default',
      time: apiGatewayTime(now),
      timeEpoch: now.getTime(),
    },
    isBase64Encoded: input.body !== undefined && !isText,
  };
  if (cookies.length > 0) event.cookies = cookies;
  if (query) event.queryStringParameters = queryParameters(query);
  if (input.pathParameters && Object.keys(input.pathParameters).length > 0) event.pathParameters = input.pathParameters;
  if (input.body !== undefined) event.body = input.body.toString(isText ? 'utf8' : 'base64');
  return event;
}

/** Repeated parameters are joined with commas, as payload 2.0 does. */
function queryParameters(query: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(query)) out[name] = name in out ? `${out[name]},${value}` : value;
  return out;
}

/** `12/Mar/2020:19:03:58 +0000`, API Gateway's request time format. */
function apiGatewayTime(date: Date): string {
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const pad = (n: number) => String(n).padStart(2, '0');
  return (
    `${pad(date.getUTCDate())}/${months[date.getUTCMonth()]}/${date.getUTCFullYear()}:` +
    `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())} +0000`
  );
}

type Primitive = string | number | boolean;

/**
 * Maps what the handler returned to the HTTP answer, as HTTP APIs do: an
 * object with `statusCode` is a structured response; anything else is sent
 * as a 200 JSON body. A malformed or oversized result is a 500.
 */
function httpReply(result: unknown, fn: LocalFunction): Reply {
  if (Buffer.byteLength(JSON.stringify(result ?? null)) > LAMBDA_RESPONSE_LIMIT_BYTES) {
    console.error(`[${fn.key}] Response payload size exceeded maximum allowed payload size (${LAMBDA_RESPONSE_LIMIT_BYTES} bytes).`);
    return message(500, 'Internal Server Error');
  }
  if (typeof result !== 'object' || result === null || Array.isArray(result) || !('statusCode' in result)) {
    const body = typeof result === 'string' ? result : JSON.stringify(result ?? null);
    return { statusCode: 200, headers: [['content-type', 'application/json']], body: Buffer.from(body) };
  }
  const structured = result as {
    statusCode: unknown;
    headers?: Record<string, Primitive>;
    multiValueHeaders?: Record<string, Primitive[]>;
    cookies?: string[];
    body?: unknown;
    isBase64Encoded?: boolean;
  };
  const { statusCode, body } = structured;
  if (typeof statusCode !== 'number' || !Number.isInteger(statusCode) || statusCode < 100 || statusCode > 599) {
    console.error(`[${fn.key}] Malformed response: statusCode ${JSON.stringify(statusCode)}`);
    return message(500, 'Internal Server Error');
  }
  if (body !== undefined && body !== null && typeof body !== 'string') {
    console.error(`[${fn.key}] Malformed response: body must be a string`);
    return message(500, 'Internal Server Error');
  }
  const headers: [string, string][] = [];
  for (const [name, value] of Object.entries(structured.headers ?? {})) headers.push([name, String(value)]);
  for (const [name, values] of Object.entries(structured.multiValueHeaders ?? {})) {
    for (const value of values) headers.push([name, String(value)]);
  }
  for (const cookie of structured.cookies ?? []) headers.push(['set-cookie', cookie]);
  const bytes = structured.isBase64Encoded ? Buffer.from(body ?? '', 'base64') : Buffer.from(body ?? '', 'utf8');
  return { statusCode, headers, body: bytes };
}

function json(statusCode: number, value: unknown): Reply {
  return { statusCode, headers: [['content-type', 'application/json']], body: Buffer.from(JSON.stringify(value)) };
}

/** API Gateway's own error answers: `{"message": "..."}`. */
function message(statusCode: number, text: string): Reply {
  return json(statusCode, { message: text });
}
