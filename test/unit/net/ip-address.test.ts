import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { classifyAddress, parseIpAddress } from '../../../lib/net/ip-address.js';

describe('parseIpAddress', () => {
  const loopbackSpellings = ['127.0.0.1', '2130706433', '0x7f000001', '0177.0.0.1', '127.1', '0x7f.1', '0x7F.0.0.1', '127.0.0.1.', '017700000001'];
  for (const spelling of loopbackSpellings) {
    it(`reads ${spelling} as 127.0.0.1, as getaddrinfo and URL parsers do`, () => {
      // Act
      const ip = parseIpAddress(spelling);

      // Assess
      assert.deepEqual(ip, { address: '127.0.0.1', family: 4 });
    });
  }

  it('reads the metadata address in decimal and hex', () => {
    // Prepare
    const spellings = ['2852039166', '0xa9fea9fe', '169.254.43518', '0251.0376.0251.0376'];

    // Act
    const addresses = spellings.map((s) => parseIpAddress(s)?.address);

    // Assess
    assert.deepEqual(addresses, Array(4).fill('169.254.169.254'));
  });

  it('canonicalises IPv6 with brackets, zone ids and embedded dotted quads', () => {
    // Act
    const results = ['[::1]', 'fe80::1%eth0', '::ffff:127.0.0.1', '0:0:0:0:0:FFFF:7F00:0001', '2001:DB8:0:0:1:0:0:1'].map((s) => parseIpAddress(s)?.address);

    // Assess
    assert.deepEqual(results, ['::1', 'fe80::1', '::ffff:7f00:1', '::ffff:7f00:1', '2001:db8::1:0:0:1']);
  });

  it('names the IPv4 host an IPv4-mapped address stands for', () => {
    // Act
    const ip = parseIpAddress('::ffff:10.0.0.5');

    // Assess
    assert.equal(ip?.embeddedIpv4, '10.0.0.5');
  });

  it('reads host names and malformed numbers as no address', () => {
    // Act
    const results = ['example.com', '1.2.3.256', '4294967296', '08.0.0.1', ':::1', '1::2::3', 'localhost', ''].map(parseIpAddress);

    // Assess
    assert.deepEqual(results, Array(8).fill(undefined));
  });
});

describe('classifyAddress', () => {
  const cases: Array<[string, string]> = [
    ['8.8.8.8', 'public'],
    ['1.1.1.1', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.0.0.2', 'loopback'],
    ['::1', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'shared'],
    ['169.254.1.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['169.254.169.254', 'metadata'],
    ['169.254.170.2', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['fd12:3456::1', 'unique-local'],
    ['fec0::1', 'site-local'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['198.18.0.1', 'benchmark'],
    ['192.0.2.1', 'documentation'],
    ['2001:db8::1', 'documentation'],
    ['240.0.0.1', 'reserved'],
    ['2001::1', 'reserved'],
    // IPv6 forms that reach an IPv4 host are judged by that host.
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:0:10.0.0.1', 'private'],
    ['64:ff9b::127.0.0.1', 'loopback'],
    ['64:ff9b::169.254.169.254', 'metadata'],
    ['64:ff9b::8.8.8.8', 'public'],
    ['64:ff9b:1::a00:1', 'private'],
    ['2002:7f00:1::1', 'loopback'],
    ['2002:a9fe:a9fe::1', 'metadata'],
    ['2002:808:808::1', 'public'],
    ['::127.0.0.1', 'loopback'],
    ['::8.8.8.8', 'reserved'],
    ['4000::1', 'reserved'],
    // Numeric spellings
    ['2130706433', 'loopback'],
    ['0xa9fea9fe', 'metadata'],
  ];
  for (const [address, expected] of cases) {
    it(`classifies ${address} as ${expected}`, () => {
      // Act
      const actual = classifyAddress(address);

      // Assess
      assert.equal(actual, expected);
    });
  }
});
