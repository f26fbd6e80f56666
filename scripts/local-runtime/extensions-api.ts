import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';

/** What Lambda tells an extension about the function it registered with. */
export type ExtensionsApiFunction = { functionName: string; functionVersion: string; handler: string };

/** The INVOKE event as the Extensions API delivers it from `event/next`. */
export type InvokeEvent = {
  eventType: 'INVOKE';
  deadlineMs: number;
  requestId: string;
  invokedFunctionArn: string;
  tracing: { type: 'X-Amzn-Trace-Id'; value: string };
};

export type ExtensionsApi = {
  /** `host:port`, the value of `AWS_LAMBDA_RUNTIME_API` inside the instance. */
  address: Promise<string>;
  /** The runtime has asked for its first event: INIT is over and no extension may register any more. */
  closeRegistration(): void;
  /** Whether every registered extension is waiting in `event/next` now (true when none is registered). */
  allWaitingNow(): boolean;
  /** Settles once every registered extension is waiting in `event/next`. */
  allWaiting(): Promise<void>;
  /** Hands the INVOKE event to every extension registered for it; each is busy until it asks for the next event. */
  deliver(event: InvokeEvent): void;
  /** Names of the extensions that have not yet asked for the next event (for the cut-off log line). */
  busyNames(): string[];
  /** Registered extensions. */
  count(): number;
  /** Ends every pending request and stops listening. */
  close(): void;
};

type Extension = {
  id: string;
  name: string;
  invoke: boolean;
  /** The pending `event/next` request, when the extension waits for an event. */
  parked?: ServerResponse;
  /** An event delivered while the extension was not waiting (it gets it at its next call). */
  queued?: InvokeEvent;
};

const BASE = '/2020-01-01/extension';

/**
 * One execution environment's Extensions API (as Lambda serves it at
 * `AWS_LAMBDA_RUNTIME_API`), for internal extensions: `POST register` with
 * `Lambda-Extension-Name` during INIT only, events `["INVOKE"]` (an internal
 * extension cannot register SHUTDOWN: it runs in the runtime process, which
 * Lambda stops without notice), then `GET event/next` with
 * `Lambda-Extension-Identifier`, long-polled, answered with the next INVOKE.
 * It lives in the local runtime's process, not in the instance: it keeps
 * answering while the instance is frozen, as Lambda's does.
 */
export function createExtensionsApi(fn: ExtensionsApiFunction): ExtensionsApi {
  const extensions = new Map<string, Extension>();
  let registrationOpen = true;
  let watchers: Array<() => void> = [];

  const allParked = () => [...extensions.values()].every((extension) => extension.parked && !extension.queued);
  const notify = () => {
    if (!allParked()) return;
    const settled = watchers;
    watchers = [];
    for (const resolve of settled) resolve();
  };

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    if (res.writableEnded || res.destroyed) return;
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
    res.end(text);
  };
  // Error bodies as Lambda's: {errorMessage, errorType}.
  const fail = (res: ServerResponse, status: number, errorType: string, errorMessage: string) => send(res, status, { errorMessage, errorType });

  const sendEvent = (res: ServerResponse, event: InvokeEvent) => send(res, 200, event, { 'lambda-extension-event-identifier': randomUUID() });

  const register = async (req: IncomingMessage, res: ServerResponse) => {
    const name = req.headers['lambda-extension-name'];
    if (typeof name !== 'string' || !name) return fail(res, 400, 'Extension.InvalidExtensionName', 'Lambda-Extension-Name header is required');
    if (!registrationOpen) return fail(res, 403, 'Extension.RegistrationForbidden', 'Extensions register during INIT only');
    let events: unknown;
    try {
      events = (JSON.parse((await readBody(req)) || '{}') as { events?: unknown }).events ?? [];
    } catch {
      return fail(res, 400, 'InvalidRequestFormat', 'The body must be JSON: {"events": [...]}');
    }
    if (!Array.isArray(events) || events.some((event) => event !== 'INVOKE' && event !== 'SHUTDOWN')) {
      return fail(res, 400, 'Extension.InvalidEventType', 'events must list INVOKE and/or SHUTDOWN');
    }
    if (events.includes('SHUTDOWN')) return fail(res, 400, 'Extension.InvalidEventType', 'An internal extension cannot register for SHUTDOWN');
    if ([...extensions.values()].some((extension) => extension.name === name)) {
      return fail(res, 409, 'Extension.AlreadyRegistered', `An extension named ${name} is already registered`);
    }
    const id = randomUUID();
    extensions.set(id, { id, name, invoke: events.includes('INVOKE') });
    send(res, 200, fn, { 'lambda-extension-identifier': id });
  };

  const next = (req: IncomingMessage, res: ServerResponse) => {
    const id = req.headers['lambda-extension-identifier'];
    const extension = typeof id === 'string' ? extensions.get(id) : undefined;
    if (!extension) return fail(res, 403, 'Extension.UnknownExtensionIdentifier', 'Unknown or missing Lambda-Extension-Identifier');
    if (extension.queued) {
      const event = extension.queued;
      extension.queued = undefined;
      return sendEvent(res, event);
    }
    // A second call while one waits replaces it (the first was given up by its caller).
    if (extension.parked) fail(extension.parked, 400, 'Extension.DuplicateNext', 'Replaced by a later event/next call');
    extension.parked = res;
    // A waiting extension whose connection goes is no longer waiting (its process died, or gave up).
    res.once('close', () => {
      if (extension.parked === res) extension.parked = undefined;
    });
    notify();
  };

  const server = createServer((req, res) => {
    const url = (req.url ?? '').split('?')[0];
    if (req.method === 'POST' && url === `${BASE}/register`) return void register(req, res);
    if (req.method === 'GET' && url === `${BASE}/event/next`) return next(req, res);
    fail(res, 404, 'NotFound', `No ${req.method} ${url} in the local Extensions API`);
  });
  // A parked event/next waits as long as the instance lives; no socket timeout may end it.
  server.requestTimeout = 0;
  server.headersTimeout = 0;
  server.timeout = 0;
  const address = new Promise<string>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(`127.0.0.1:${(server.address() as AddressInfo).port}`));
  });
  address.catch(() => undefined);

  return {
    address,
    closeRegistration() {
      registrationOpen = false;
    },
    allWaitingNow: allParked,
    allWaiting() {
      if (allParked()) return Promise.resolve();
      return new Promise((resolve) => watchers.push(resolve));
    },
    deliver(event) {
      for (const extension of extensions.values()) {
        if (!extension.invoke) continue;
        const parked = extension.parked;
        extension.parked = undefined;
        if (parked && !parked.destroyed) sendEvent(parked, event);
        else extension.queued = event;
      }
    },
    busyNames: () => [...extensions.values()].filter((extension) => !extension.parked || extension.queued).map((extension) => extension.name),
    count: () => extensions.size,
    close() {
      watchers = [];
      for (const extension of extensions.values()) extension.parked?.destroy();
      server.closeAllConnections();
      server.close();
    },
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
