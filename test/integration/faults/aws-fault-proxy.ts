import { once } from 'node:events';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An AWS error as the service would send it, or a connection dropped before any answer. */
export type Fault = { status: number; headers?: Record<string, string>; body: string } | 'reset';

/** The errors AWS sends when it throttles or fails, in each service's own wire format. */
export const FAULTS = {
  dynamoThrottled: {
    status: 400,
    headers: { 'content-type': 'application/x-amz-json-1.0' },
    body: JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException', message: 'The level of configured provisioned throughput for the table was exceeded.' }),
  },
  dynamoInternal: {
    status: 500,
    headers: { 'content-type': 'application/x-amz-json-1.0' },
    body: JSON.stringify({ __type: 'com.amazon.coral.service#InternalFailure', message: 'Internal server error' }),
  },
  s3SlowDown: {
    status: 503,
    headers: { 'content-type': 'application/xml' },
    body: '<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message><RequestId>FAULT</RequestId></Error>',
  },
  sqsUnavailable: {
    status: 503,
    headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-query-error': 'ServiceUnavailable;Server' },
    body: JSON.stringify({ __type: 'com.amazonaws.sqs#ServiceUnavailable', message: 'Service is unavailable.' }),
  },
} satisfies Record<string, Fault>;

/** Decides, per request, whether to fail it; `undefined` forwards it to the emulator. */
export type FaultPlan = (request: { method: string; url: string; target?: string }) => Fault | undefined;

export type FaultProxy = {
  url: string;
  /** Requests that reached the proxy, failed or forwarded. */
  seen: () => number;
  /** Requests that were failed on purpose. */
  failed: () => number;
  setPlan: (plan: FaultPlan | undefined) => void;
  close: () => Promise<void>;
};

/**
 * An HTTP proxy in front of one emulator: the SDK client is pointed at it
 * through the same `AWS_ENDPOINT_URL_<SERVICE>` variable the service reads,
 * and it answers chosen requests with AWS's own error responses, so the SDK's
 * real parsing, classification and retries with backoff run.
 */
export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const upstream = new URL(target);
  let plan: FaultPlan | undefined;
  let seen = 0;
  let failed = 0;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    seen += 1;
    const fault = plan?.({ method: req.method ?? 'GET', url: req.url ?? '/', target: req.headers['x-amz-target'] as string | undefined });
    if (fault) {
      failed += 1;
      req.resume();
      if (fault === 'reset') {
        req.socket.destroy();
        return;
      }
      res.writeHead(fault.status, { 'x-amzn-requestid': 'FAULT', ...fault.headers });
      res.end(fault.body);
      return;
    }
    const forward = request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen: () => seen,
    failed: () => failed,
    setPlan: (next) => {
      plan = next;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Fails the first `count` requests the plan sees with `fault`, then lets every request through. */
export function failFirst(count: number, fault: Fault, only?: (request: { method: string; target?: string }) => boolean): FaultPlan {
  let left = count;
  return (request) => {
    if (only && !only(request)) return undefined;
    if (left <= 0) return undefined;
    left -= 1;
    return fault;
  };
}

/** Fails every request the filter picks (all by default). */
export function failAlways(fault: Fault, only?: (request: { method: string; target?: string }) => boolean): FaultPlan {
  return (request) => (only && !only(request) ? undefined : fault);
}
