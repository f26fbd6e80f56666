import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createEgressFetch, type EgressFetch } from '../../../lib/net/egress-fetch.js';
import { createEgressPolicy } from '../../../lib/net/egress-policy.js';
import { EgressRefusedError } from '../../../lib/net/errors.js';
import type { HostResolver } from '../../../lib/net/resolve-egress.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';

/** The EgressRefusedError a failed fetch carries as its cause, if that is why it failed. */
function refusalOf(error: unknown): EgressRefusedError | undefined {
  const cause = (error as { cause?: unknown })?.cause;
  return cause instanceof EgressRefusedError ? cause : undefined;
}

describe('createEgressFetch', () => {
  let receiver: TestServer;
  let internal: TestServer;
  let lookups = 0;
  let call: EgressFetch;
  let resolver: HostResolver;
  const policy = createEgressPolicy({ allowPrivateHosts: ['127.0.0.1'] });

  before(async () => {
    internal = await startTestServer({ '/': (_req, res) => res.end('internal secret') }, '127.0.0.2');
    receiver = await startTestServer({
      '/hook': (_req, res) => res.end('ok'),
      '/to-internal': (_req, res) => {
        res.writeHead(307, { location: `${internal.url}/` });
        res.end();
      },
    });
    resolver = async (hostname) => {
      if (hostname === 'hooks.test') return [{ address: '127.0.0.1', family: 4 }];
      if (hostname === 'rebind.test') {
        lookups += 1;
        return [{ address: lookups === 1 ? '127.0.0.1' : '127.0.0.2', family: 4 }];
      }
      throw Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    };
    call = createEgressFetch({ policy, resolver });
  });

  after(async () => {
    await receiver?.close();
    await internal?.close();
  });

  beforeEach(() => {
    internal.requests.length = 0;
  });

  it('delivers a webhook to an allowed host with its method, headers and body', async () => {
    // Act
    const res = await call(`${receiver.url}/hook`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-a': '1' }, body: '{"id":"j1"}' });

    // Assess
    assert.equal(res.status, 200);
    assert.equal(await res.text(), 'ok');
    const seen = receiver.requests.at(-1);
    assert.equal(seen?.method, 'POST');
    assert.equal(seen?.headers['x-a'], '1');
    assert.equal(seen?.body, '{"id":"j1"}');
  });

  it('connects a host name to the address its lookup was checked on', async () => {
    // Act
    const res = await call(`http://hooks.test:${new URL(receiver.url).port}/hook`, { method: 'PUT', body: 'file' });

    // Assess
    assert.equal(res.status, 200);
    assert.equal(receiver.requests.at(-1)?.headers.host, `hooks.test:${new URL(receiver.url).port}`);
  });

  it('fails a call to the internal host with EgressRefusedError, and nothing reaches it', async () => {
    // Act
    const attempt = call(`${internal.url}/`, { method: 'POST', body: 'x' });

    // Assess
    await assert.rejects(attempt, (error: unknown) => refusalOf(error)?.addressClass === 'loopback');
    assert.equal(internal.requests.length, 0);
  });

  it('refuses a redirect to the internal host', async () => {
    // Act
    const attempt = call(`${receiver.url}/to-internal`, { method: 'POST', body: 'x' });

    // Assess
    await assert.rejects(attempt, (error: unknown) => refusalOf(error) !== undefined);
    assert.equal(internal.requests.length, 0);
  });

  it('refuses a name that rebinds to the internal host on its next lookup', async () => {
    // Prepare
    const port = new URL(receiver.url).port;
    lookups = 0;
    // A second client has no connection to reuse: it must look the name up again.
    const otherClient = createEgressFetch({ policy, resolver });

    // Act
    const first = await call(`http://rebind.test:${port}/hook`, { method: 'POST', body: '1' });
    const second = otherClient(`http://rebind.test:${port}/hook`, { method: 'POST', body: '2' });

    // Assess
    assert.equal(await first.text(), 'ok');
    await assert.rejects(second, (error: unknown) => refusalOf(error) !== undefined);
    assert.equal(lookups, 2);
    assert.equal(internal.requests.length, 0);
  });
});
