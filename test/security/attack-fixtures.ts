/**
 * The stage of the security suite: the running service started with
 * ALLOW_PRIVATE_HOSTS naming only 127.0.0.1 (which plays the public internet),
 * an attacker's site on 127.0.0.1, and an "internal" host on 127.0.0.2 that
 * holds a secret and counts every connection it is offered. Only loopback
 * addresses are ever targets.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readPdf } from '../helpers/documents.js';
import { startService, type RunningService } from '../helpers/service.js';

/** The one address the suite's service may reach although it is not public. */
export const PUBLIC_HOST = '127.0.0.1';
/** The address playing the internal network: never to be reached. */
export const INTERNAL_HOST = '127.0.0.2';

export type InternalHost = {
  url: string;
  port: number;
  /** A value that exists only on the internal host: finding it in an output means it leaked. */
  secret: string;
  /** Every TCP connection, HTTP request and upgrade it was offered. */
  connections: () => number;
  requests: string[];
  upgrades: string[];
  reset: () => void;
  close: () => Promise<void>;
};

/** Starts the internal host on 127.0.0.2: it answers everything with its secret and records everything. */
export async function startInternalHost(): Promise<InternalHost> {
  const secret = `INTERNAL-SECRET-${randomBytes(6).toString('hex')}`;
  const requests: string[] = [];
  const upgrades: string[] = [];
  let connections = 0;
  const server: Server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'content-type': 'text/html', 'access-control-allow-origin': '*' });
    res.end(`<p>${secret}</p>`);
  });
  server.on('connection', () => (connections += 1));
  server.on('upgrade', (req, socket) => {
    upgrades.push(req.url ?? '');
    socket.destroy();
  });
  server.listen(0, INTERNAL_HOST);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${INTERNAL_HOST}:${port}`,
    port,
    secret,
    connections: () => connections,
    requests,
    upgrades,
    reset: () => {
      connections = 0;
      requests.length = 0;
      upgrades.length = 0;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

type Route = (req: IncomingMessage, res: ServerResponse) => void;

export type AttackerSite = { url: string; port: number; requests: string[]; close: () => Promise<void> };

/** Starts the attacker's site on 127.0.0.1 (reachable: it is what a public page is). */
export async function startAttackerSite(routes: Record<string, Route>): Promise<AttackerSite> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    requests.push(req.url ?? '/');
    const route = routes[path];
    if (route) route(req, res);
    else {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    }
  });
  server.listen(0, PUBLIC_HOST);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { url: `http://${PUBLIC_HOST}:${port}`, port, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Starts the service as `npm start` does, with only the "public" loopback address allowed. */
export function startSecuredService(env: Record<string, string> = {}): Promise<RunningService> {
  return startService({ ALLOW_PRIVATE_HOSTS: PUBLIC_HOST, ...env });
}

/** An HTML answer. */
export const page = (markup: string): Route => (_req, res) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(markup);
};

/** A redirect answer. */
export const redirect = (location: string, status = 302): Route => (_req, res) => {
  res.writeHead(status, { location });
  res.end();
};

/** Base64 of a UTF-8 string, as the API takes HTML. */
export const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

/** The whole text of a PDF answer (all pages, iframes included as Chromium prints them). */
export async function pdfTextOf(res: Response): Promise<string> {
  const info = await readPdf(new Uint8Array(await res.arrayBuffer()));
  return info.text.join('\n');
}

type ErrorBody = { message: string; code?: string; fields?: Record<string, string> };

/** The body of an error answer. */
export async function errorOf(res: Response): Promise<ErrorBody> {
  return (await res.json()) as ErrorBody;
}

/** Waits until `check` holds, polling; false when it never did within `timeoutMs`. */
export async function eventually(check: () => Promise<boolean> | boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return false;
}

/**
 * Markup that tries every way a page reaches the network towards `target`
 * (an origin such as http://127.0.0.2:1234), and writes whatever it manages
 * to read into the page, so that a leak shows in the output.
 */
export function everyRequestKind(target: string): string {
  const { hostname, port } = new URL(target);
  const wsTarget = `ws://${hostname}:${port}`;
  return `
    <link rel="stylesheet" href="${target}/css">
    <link rel="preload" as="fetch" href="${target}/preload" crossorigin>
    <style>@import url("${target}/import"); @font-face { font-family: leak; src: url("${target}/font"); } body { font-family: leak, sans-serif; } div.bg { background: url("${target}/bg"); height: 4px; }</style>
    <p>public page</p>
    <div class="bg"></div>
    <img src="${target}/img">
    <img src="http://2130706434:${port}/decimal"><img src="http://0x7f000002:${port}/hex"><img src="http://0177.0.0.2:${port}/octal"><img src="http://127.2:${port}/short">
    <img src="http://[::ffff:127.0.0.2]:${port}/mapped">
    <iframe src="${target}/frame" width="400" height="60"></iframe>
    <object data="${target}/object" width="10" height="10"></object>
    <video src="${target}/video"></video><audio src="${target}/audio"></audio>
    <p id="leak">read:</p>
    <script>
      const leak = (text) => { document.getElementById('leak').append(' ' + text); };
      fetch('${target}/fetch').then((r) => r.text()).then(leak, () => {});
      fetch('${target}/no-cors', { mode: 'no-cors' }).catch(() => {});
      const xhr = new XMLHttpRequest(); xhr.onload = () => leak(xhr.responseText); xhr.open('GET', '${target}/xhr'); xhr.send();
      navigator.sendBeacon('${target}/beacon', 'x');
      try { const ws = new WebSocket('${wsTarget}/ws'); ws.onmessage = (m) => leak(m.data); } catch {}
      try { const es = new EventSource('${target}/sse'); es.onmessage = (m) => leak(m.data); } catch {}
      try { new Worker(URL.createObjectURL(new Blob(["fetch('${target}/worker').then((r) => r.text()).then((t) => postMessage(t), () => {}); try { new WebSocket('${wsTarget}/worker-ws'); } catch {}"]))).onmessage = (m) => leak(m.data); } catch {}
      const form = document.createElement('form'); form.method = 'POST'; form.action = '${target}/form'; form.target = 'sink';
      const sink = document.createElement('iframe'); sink.name = 'sink'; document.body.append(sink, form); form.submit();
    </script>`;
}
