import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type TestServer = {
  url: string;
  /** Requests received so far, in order. */
  requests: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: string }>;
  close: () => Promise<void>;
};

/** A local HTTP server for pages, webhooks and uploads in tests; `routes` maps paths to handlers. */
export async function startTestServer(
  routes: Record<string, (req: IncomingMessage, res: ServerResponse, body: string) => void>,
  host = '127.0.0.1',
): Promise<TestServer> {
  const requests: TestServer['requests'] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const route = routes[path];
      if (route) route(req, res, body);
      else {
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('not found');
      }
    });
  });
  server.listen(0, host);
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Sends an HTML page. */
export const html = (markup: string) => (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(markup);
};
