import { addressRefusal } from '../../src/signin/clients/addresses';

describe('addressRefusal', () => {
  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.215.14',
    '172.15.255.255', // just below 172.16/12
    '172.32.0.1', // just above it
    '100.63.255.255', // just below 100.64/10
    '100.128.0.0', // just above it
    '2606:4700:4700::1111',
    '2001:4860:4860::8888',
    '[2a00:1450:4001:80b::200e]',
    '::ffff:8.8.8.8', // IPv4-mapped, of a public address
    '64:ff9b::808:808', // NAT64 (DNS64 networks), of 8.8.8.8
  ])('accepts the public unicast address %s', (address) => {
    expect(addressRefusal(address)).toBeUndefined();
  });

  it.each([
    ['127.0.0.1', /loopback/],
    ['127.255.255.254', /loopback/],
    ['10.0.0.1', /private/],
    ['172.16.0.1', /private/],
    ['172.31.255.255', /private/],
    ['192.168.1.1', /private/],
    ['169.254.169.254', /link-local/], // cloud metadata services
    ['100.64.0.1', /carrier-grade NAT/],
    ['100.127.255.255', /carrier-grade NAT/],
    ['0.0.0.0', /unspecified/],
    ['0.1.2.3', /unspecified/], // 0/8: "this network"
    ['255.255.255.255', /broadcast/],
    ['224.0.0.1', /multicast/],
    ['239.255.255.250', /multicast/],
    ['192.0.2.1', /reserved or documentation/], // TEST-NET-1
    ['198.51.100.7', /reserved or documentation/], // TEST-NET-2
    ['203.0.113.9', /reserved or documentation/], // TEST-NET-3
    ['198.18.0.1', /reserved/], // benchmarking
    ['240.0.0.1', /reserved/],
    ['192.0.0.8', /reserved/],
  ])('refuses the IPv4 address %s', (address, reason) => {
    expect(addressRefusal(address)).toMatch(reason);
    expect(addressRefusal(address)).toContain(address);
  });

  it.each([
    ['::1', /loopback/],
    ['[::1]', /loopback/],
    ['::', /unspecified/],
    ['fe80::1', /link-local/],
    ['fe80::1%eth0', /link-local/],
    ['fc00::1', /unique-local/],
    ['fd12:3456:789a::1', /unique-local/],
    ['fec0::1', /site-local/],
    ['ff02::1', /multicast/],
    ['2001:db8::1', /documentation/],
    ['100::1', /discard/],
  ])('refuses the IPv6 address %s', (address, reason) => {
    expect(addressRefusal(address)).toMatch(reason);
  });

  it.each([
    ['::ffff:127.0.0.1', /IPv4-mapped address of 127\.0\.0\.1, which is a loopback/],
    ['::ffff:7f00:1', /IPv4-mapped address of 127\.0\.0\.1/],
    ['[::ffff:7f00:1]', /IPv4-mapped address of 127\.0\.0\.1/], // as a URL spells it
    ['::ffff:10.1.2.3', /IPv4-mapped address of 10\.1\.2\.3, which is a private/],
    ['::ffff:169.254.169.254', /link-local/],
    ['::ffff:0.0.0.0', /unspecified/],
    ['::127.0.0.1', /IPv4-compatible address \(deprecated\), embedding 127\.0\.0\.1/], // not IPv4-mapped, whatever ipaddr.js reads
    ['::8.8.8.8', /IPv4-compatible/], // deprecated outright, whatever it embeds
    ['64:ff9b::7f00:1', /NAT64 address of 127\.0\.0\.1, which is a loopback/],
    ['64:ff9b::a00:1', /NAT64 address of 10\.0\.0\.1/],
    ['64:ff9b:1::a00:1', /local-use NAT64/],
    ['2002:7f00:1::1', /6to4 address \(2002::\/16\), embedding 127\.0\.0\.1/],
    ['2002:808:808::1', /6to4/], // its relays can reach anything, whatever it embeds
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', /Teredo/],
    ['::ffff:0:7f00:1', /IPv4-translated/],
  ])('judges an IPv6 address that embeds an IPv4 one: %s', (address, reason) => {
    expect(addressRefusal(address)).toMatch(reason);
  });

  it.each(['localhost', 'example.com', '', '127.1', '0x7f.0.0.1', '2130706433', '017700000001', '1.2.3.4.5', '::ffff:127.0.0.1:80', '[::1', '256.1.1.1', '127.0.0.01', '::ffff:0x7f.0.0.1', '::ffff:127.0.0.01'])(
    'refuses %j, which is not an IP address as a resolver answers one',
    (address) => {
      expect(addressRefusal(address)).toMatch(/is not an IP address/);
    },
  );
});
