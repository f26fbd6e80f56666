import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import type { LookupFunction } from 'node:net';
import { createEgressPolicy } from '../../../lib/net/egress-policy.js';
import { EgressRefusedError } from '../../../lib/net/errors.js';
import { egressLookup, type HostResolver } from '../../../lib/net/resolve-egress.js';
import { startTestServer, type TestServer } from '../../helpers/test-server.js';

/** A POST with node:http to `url`, connecting through `lookup`; resolves with the status. */
function post(url: string, lookup: LookupFunction): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent: false, lookup }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end('payload');
  });
}

describe('egressLookup', () => {
  let receiver: TestServer;
  let internal: TestServer;
  let lookups = 0;
  const policy = createEgressPolicy({ allowPrivateHosts: ['127.0.0.1'] });
  // The first answer is the allowed host, every later one the internal host.
  const resolver: HostResolver = async () => {
    lookups += 1;
    return [{ address: lookups === 1 ? '127.0.0.1' : '127.0.0.2', family: 4 }];
  };

  before(async () => {
    receiver = await startTestServer({ '/hook': (_req, res) => res.end('ok') }, '127.0.0.1');
    internal = await startTestServer({ '/hook': (_req, res) => res.end('internal secret') }, '127.0.0.2');
  });

  after(async () => {
    await receiver?.close();
    await internal?.close();
  });

  it('pins a node:http call to the address that was checked, whatever DNS says afterwards', async () => {
    // Prepare: both servers on their own ports; the name carries the allowed host's port.
    const port = new URL(receiver.url).port;
    const lookup = await egressLookup('hooks.test', { policy, resolver });

    // Act: the connection must not ask DNS again (it would now answer 127.0.0.2).
    const status = await post(`http://hooks.test:${port}/hook`, lookup);

    // Assess
    assert.equal(status, 200);
    assert.equal(lookups, 1);
    assert.equal(receiver.requests.at(-1)?.headers.host, `hooks.test:${port}`);
    assert.equal(internal.requests.length, 0);
  });

  it('refuses an IP literal of the internal host before any connection', async () => {
    // Act
    const attempt = egressLookup('127.0.0.2', { policy, resolver });

    // Assess
    await assert.rejects(attempt, EgressRefusedError);
    assert.equal(internal.requests.length, 0);
  });
});
