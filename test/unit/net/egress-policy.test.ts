import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allowListProblems } from '../../../lib/net/allow-list.js';
import { createEgressPolicy, upFrontRefusal } from '../../../lib/net/egress-policy.js';
import { EgressRefusedError } from '../../../lib/net/errors.js';
import { resolveEgress, type HostResolver } from '../../../lib/net/resolve-egress.js';

const noPrivate = createEgressPolicy();

/** A resolver with fixed answers that counts its calls. */
function fakeDns(answers: Record<string, string[]>): HostResolver & { calls: string[] } {
  const calls: string[] = [];
  const resolver = async (hostname: string) => {
    calls.push(hostname);
    const list = answers[hostname];
    if (!list) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return list.map((address) => ({ address, family: (address.includes(':') ? 6 : 4) as 4 | 6 }));
  };
  return Object.assign(resolver, { calls });
}

describe('upFrontRefusal', () => {
  const refused = [
    'http://127.0.0.1/',
    'http://127.0.0.2:8080/admin',
    'http://2130706433/',
    'http://0x7f000001/',
    'http://0177.0.0.1/',
    'http://127.1/',
    'http://[::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:a9fe:a9fe]/latest/meta-data/',
    'http://169.254.169.254/latest/meta-data/',
    'http://169.254.170.2/v2/credentials',
    'http://[fd00:ec2::254]/',
    'http://10.0.0.1/',
    'http://192.168.0.1/',
    'http://0.0.0.0:9001/',
    'http://localhost:9001/2018-06-01/runtime/invocation/next',
    'http://LOCALHOST./',
    'http://api.localhost/',
    'https://[fe80::1]/',
    'http://224.0.0.1/',
    // The Lambda runtime API (AWS_LAMBDA_RUNTIME_API is 127.0.0.1:9001) in the spellings of the SSRF catalogues.
    'http://127.0.0.1:9001/2018-06-01/runtime/invocation/next',
    'http://2130706433:9001/2018-06-01/runtime/invocation/next',
    'http://[::ffff:127.0.0.1]:9001/2018-06-01/runtime/invocation/next',
    'http://[::ffff:0:7f00:1]:9001/',
    'http://[::127.0.0.1]:9001/',
    'http://[64:ff9b::7f00:1]:9001/',
    'http://[2002:7f00:1::]:9001/',
    'http://127.0.0.1.:9001/',
    'http://%31%32%37.0.0.1:9001/',
    'http://１２７.０.０.１:9001/',
    'http://0:9001/',
    // ECS and EKS credential endpoints, and the IMDSv2 token path.
    'http://169.254.170.23/v1/credentials',
    'http://[fd00:ec2::23]/v1/credentials',
    'http://169.254.169.254/latest/api/token',
    'http://0251.0376.0251.0376/',
    'http://0xa9.0xfe.0xa9.0xfe/',
    'http://169.254.43518/',
    'http://[64:ff9b::a9fe:a9fe]/',
    'http://[2002:a9fe:a9fe::]/',
  ];
  for (const url of refused) {
    it(`refuses ${url} by default`, () => {
      // Act
      const reason = upFrontRefusal(url, noPrivate);

      // Assess
      assert.equal(typeof reason, 'string');
    });
  }

  it('names the class of address in the reason', () => {
    // Act
    const reason = upFrontRefusal('http://0xa9fea9fe/latest', noPrivate);

    // Assess
    assert.equal(reason, '169.254.169.254 is a cloud metadata address');
  });

  it('leaves public addresses and host names to the connection-time check', () => {
    // Act
    const reasons = ['https://example.com/', 'http://8.8.8.8/', 'https://[2606:4700::1111]/', 'https://internal.example/'].map((url) =>
      upFrontRefusal(url, noPrivate),
    );

    // Assess
    assert.deepEqual(reasons, [undefined, undefined, undefined, undefined]);
  });

  it('lets through what ALLOW_PRIVATE_HOSTS names: an address, a range, a host name', () => {
    // Prepare
    const policy = createEgressPolicy({ allowPrivateHosts: ['127.0.0.1', '10.0.0.0/8', 'localhost'] });

    // Act
    const reasons = ['http://127.0.0.1:3000/', 'http://2130706433/', 'http://10.20.30.40/', 'http://localhost/'].map((url) =>
      upFrontRefusal(url, policy),
    );

    // Assess
    assert.deepEqual(reasons, [undefined, undefined, undefined, undefined]);
  });

  it('allows only what is named: 127.0.0.1 does not open 127.0.0.2 or localhost', () => {
    // Prepare
    const policy = createEgressPolicy({ allowPrivateHosts: ['127.0.0.1'] });

    // Act
    const reasons = ['http://127.0.0.2/', 'http://localhost/', 'http://[::1]/'].map((url) => upFrontRefusal(url, policy));

    // Assess
    assert.ok(reasons.every((reason) => typeof reason === 'string'), JSON.stringify(reasons));
  });

  it('counts an IPv4-mapped IPv6 address as the IPv4 address it maps', () => {
    // Prepare
    const policy = createEgressPolicy({ allowPrivateHosts: ['127.0.0.1'] });

    // Act
    const reason = upFrontRefusal('http://[::ffff:127.0.0.1]/', policy);

    // Assess
    assert.equal(reason, undefined);
  });
});

describe('allowListProblems', () => {
  it('accepts names, addresses and CIDR ranges of both families', () => {
    // Act
    const problems = allowListProblems(['localhost', 'db.internal', '127.0.0.1', '::1', '10.0.0.0/8', 'fd00::/8', 'my_host.corp.']);

    // Assess
    assert.deepEqual(problems, []);
  });

  it('names every entry that is none of those', () => {
    // Act
    const problems = allowListProblems(['*.internal', '10.0.0.0/33', 'http://x', '1.2.3.256', 'a b']);

    // Assess
    assert.equal(problems.length, 5);
    assert.match(problems[0] ?? '', /\*\.internal/);
  });
});

describe('resolveEgress', () => {
  it('returns the checked addresses of a public name', async () => {
    // Prepare
    const dns = fakeDns({ 'example.com': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'] });

    // Act
    const addresses = await resolveEgress('example.com', { policy: noPrivate, resolver: dns });

    // Assess
    assert.deepEqual(addresses.map((a) => a.address), ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c']);
  });

  it('refuses a name that resolves to a private address, naming neither the address nor its class', async () => {
    // Prepare
    const dns = fakeDns({ 'db.example.com': ['10.0.3.7'] });

    // Act
    const attempt = resolveEgress('db.example.com', { policy: noPrivate, resolver: dns });

    // Assess
    await assert.rejects(attempt, (error: unknown) => {
      assert.ok(error instanceof EgressRefusedError);
      assert.equal(error.addressClass, 'private');
      assert.doesNotMatch(error.message, /10\.0\.3\.7/);
      assert.doesNotMatch(error.message, /private|loopback|link-local|reserved|metadata/i);
      assert.match(error.message, /db\.example\.com does not resolve to a public address/);
      return true;
    });
  });

  it('refuses a name when any one of its addresses is private', async () => {
    // Prepare
    const dns = fakeDns({ 'mixed.example.com': ['93.184.215.14', '169.254.169.254'] });

    // Act
    const attempt = resolveEgress('mixed.example.com', { policy: noPrivate, resolver: dns });

    // Assess
    await assert.rejects(attempt, EgressRefusedError);
  });

  it('refuses a name resolving to an IPv4-mapped loopback address', async () => {
    // Prepare
    const dns = fakeDns({ 'sneaky.example.com': ['::ffff:127.0.0.1'] });

    // Act
    const attempt = resolveEgress('sneaky.example.com', { policy: noPrivate, resolver: dns });

    // Assess
    await assert.rejects(attempt, (error: unknown) => {
      assert.ok(error instanceof EgressRefusedError);
      assert.equal(error.addressClass, 'loopback');
      assert.doesNotMatch(error.message, /loopback/i);
      return true;
    });
  });

  it('refuses literals and localhost names without asking DNS', async () => {
    // Prepare
    const dns = fakeDns({ localhost: ['93.184.215.14'] });

    // Act
    const results = await Promise.allSettled(['127.0.0.1', '[::1]', 'localhost', 'x.localhost', '0x7f.1'].map((host) =>
      resolveEgress(host, { policy: noPrivate, resolver: dns }),
    ));

    // Assess
    assert.ok(results.every((r) => r.status === 'rejected' && r.reason instanceof EgressRefusedError));
    assert.deepEqual(dns.calls, []);
  });

  it('accepts any address for a host name ALLOW_PRIVATE_HOSTS names', async () => {
    // Prepare
    const policy = createEgressPolicy({ allowPrivateHosts: ['db.internal'] });
    const dns = fakeDns({ 'db.internal': ['10.0.3.7'] });

    // Act
    const addresses = await resolveEgress('DB.Internal.', { policy, resolver: dns });

    // Assess
    assert.deepEqual(addresses.map((a) => a.address), ['10.0.3.7']);
  });

  it('accepts a private address inside an allowed range, from any name', async () => {
    // Prepare
    const policy = createEgressPolicy({ allowPrivateHosts: ['10.0.0.0/16'] });
    const dns = fakeDns({ 'a.example': ['10.0.9.9'], 'b.example': ['10.1.0.1'] });

    // Act
    const inside = await resolveEgress('a.example', { policy, resolver: dns });
    const outside = resolveEgress('b.example', { policy, resolver: dns });

    // Assess
    assert.deepEqual(inside.map((a) => a.address), ['10.0.9.9']);
    await assert.rejects(outside, EgressRefusedError);
  });

  it('answers an allowed localhost name with loopback, as Chromium does, without asking DNS', async () => {
    // Prepare
    const policy = createEgressPolicy({ allowPrivateHosts: ['localhost'] });
    const dns = fakeDns({ 'news.localhost': ['93.184.215.14'] });

    // Act
    const addresses = await resolveEgress('news.localhost', { policy, resolver: dns });

    // Assess
    assert.deepEqual(addresses.map((a) => a.address), ['127.0.0.1', '::1']);
    assert.deepEqual(dns.calls, []);
  });

  it('passes lookup failures on as they are', async () => {
    // Prepare
    const dns = fakeDns({});

    // Act
    const attempt = resolveEgress('nowhere.example', { policy: noPrivate, resolver: dns });

    // Assess
    await assert.rejects(attempt, (error: unknown) => (error as { code?: string }).code === 'ENOTFOUND' && !(error instanceof EgressRefusedError));
  });
});
