/**
 * Fetches a caller's PDF from `documentUrl` (/v1/pdf/process): a GET through
 * the egress policy (the address checked once and connected to as checked,
 * as every outbound call), no redirects followed, at most a stated number of
 * bytes read, within the time the render has left.
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { within } from '../deadline.js';
import { EgressRefusedError } from '../net/errors.js';
import { egressLookup } from '../net/resolve-egress.js';
import { DocumentFetchError } from './errors.js';
import { networkReason } from './outbound-http.js';


/** The body of `url`, or DocumentFetchError; at most `maxBytes`, within `timeoutMs`; `accept` is the media types asked for (a PDF by default). */
export async function fetchDocument(url: string, options: { maxBytes: number; timeoutMs: number; accept?: string }): Promise<Buffer> {
  const target = new URL(url);
  if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new DocumentFetchError('Only http and https URLs are fetched');
  const deadline = Date.now() + Math.max(0, options.timeoutMs);
  const noAnswer = `No complete answer within ${Math.round(options.timeoutMs / 100) / 10} s`;
  let lookup: LookupFunction;
  try {
    const resolved = await within(egressLookup(target.hostname), deadline - Date.now(), undefined);
    if (!resolved) throw new DocumentFetchError(noAnswer);
    lookup = resolved;
  } catch (error) {
    if (error instanceof DocumentFetchError) throw error;
    if (error instanceof EgressRefusedError) throw new DocumentFetchError(`Refused by the network rules: ${error.message}`);
    throw new DocumentFetchError(`Could not be fetched: ${networkReason(error as NodeJS.ErrnoException)}`);
  }
  return new Promise<Buffer>((resolve, reject) => {
    let settled = false;
    const fail = (reason: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      reject(new DocumentFetchError(reason));
    };
    const client = target.protocol === 'https:' ? https : http;
    // A fresh connection (agent: false): nothing is pooled towards caller hosts.
    const req = client.request(target, { method: 'GET', headers: { 'user-agent': 'DocRender', accept: options.accept ?? 'application/pdf, */*' }, agent: false, lookup }, (res) => {
      const status = res.statusCode ?? 0;
      if (status < 200 || status >= 300) {
        res.resume();
        fail(status >= 300 && status < 400 ? `Answered ${status} (redirects are not followed)` : `Answered ${status}`);
        return;
      }
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > options.maxBytes) {
        fail(`Must be at most ${options.maxBytes / 1024 / 1024} MB; it declares ${declared} bytes`);
        return;
      }
      const chunks: Buffer[] = [];
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > options.maxBytes) fail(`Must be at most ${options.maxBytes / 1024 / 1024} MB`);
        else chunks.push(chunk);
      });
      res.on('error', () => fail('The connection failed while the document was read'));
      res.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(Buffer.concat(chunks));
      });
    });
    const timer = setTimeout(() => fail(noAnswer), Math.max(0, deadline - Date.now()));
    req.on('error', (error: NodeJS.ErrnoException) => fail(`Could not be fetched: ${networkReason(error)}`));
    req.end();
  });
}
