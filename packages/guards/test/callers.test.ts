import { callerOf, ClientAddresses } from '@typemcp/guards';

const headers = (values: Record<string, string>) => ({ get: (name: string) => values[name.toLowerCase()] ?? null });

describe('ClientAddresses', () => {
  it('takes the peer as it is when no proxy is trusted, whatever the headers say', () => {
    const addresses = new ClientAddresses();
    expect(addresses.resolve('203.0.113.9', headers({ 'x-forwarded-for': '198.51.100.1' }))).toBe('203.0.113.9');
  });

  it('reads X-Forwarded-For from the right, skipping trusted proxies, and stops at the first untrusted hop', () => {
    const addresses = new ClientAddresses(['10.0.0.0/8']);
    // A client that writes its own header cannot pick its address: the proxy appended the real one.
    expect(addresses.resolve('10.0.0.2', headers({ 'x-forwarded-for': '1.1.1.1, 198.51.100.7, 10.0.0.5' }))).toBe('198.51.100.7');
    expect(addresses.resolve('10.0.0.2', headers({ 'x-forwarded-for': '198.51.100.7' }))).toBe('198.51.100.7');
  });

  it('ignores the header of a peer that is not trusted', () => {
    const addresses = new ClientAddresses(['10.0.0.0/8']);
    expect(addresses.resolve('203.0.113.9', headers({ 'x-forwarded-for': '198.51.100.7' }))).toBe('203.0.113.9');
  });

  it('reads Forwarded (RFC 7239) and X-Forwarded-For, with quoted IPv6 and ports; the peer when they disagree', () => {
    const addresses = new ClientAddresses(['loopback']);
    expect(addresses.resolve('127.0.0.1', headers({ forwarded: 'for="[2001:db8::1]:4711";proto=https, for=127.0.0.1', 'x-forwarded-for': '2001:db8::1, 127.0.0.1' }))).toBe('2001:db8::1');
    // One of the two was written by the client (a proxy keeps only one): neither names it.
    expect(addresses.resolve('127.0.0.1', headers({ forwarded: 'for="[2001:db8::1]:4711";proto=https, for=127.0.0.1', 'x-forwarded-for': '9.9.9.9' }))).toBe('127.0.0.1');
    expect(addresses.resolve('::1', headers({ forwarded: 'for=192.0.2.60:8080' }))).toBe('192.0.2.60');
  });

  it('spells an IPv4-mapped IPv6 peer as IPv4, so one client has one key', () => {
    const addresses = new ClientAddresses(['loopback']);
    expect(addresses.resolve('::ffff:127.0.0.1', headers({ 'x-forwarded-for': '::ffff:198.51.100.7' }))).toBe('198.51.100.7');
    expect(new ClientAddresses().resolve('::ffff:203.0.113.9', undefined)).toBe('203.0.113.9');
  });

  it('stops at a hop that is not an address (a header written to confuse it)', () => {
    const addresses = new ClientAddresses(['private']);
    expect(addresses.resolve('192.168.1.1', headers({ 'x-forwarded-for': 'not-an-address' }))).toBe('not-an-address');
    expect(addresses.resolve('192.168.1.1', headers({ 'x-forwarded-for': '' }))).toBe('192.168.1.1');
  });

  it('refuses a trusted entry that is not an address or range, naming it', () => {
    expect(() => new ClientAddresses(['10.0.0.0/33'])).toThrow(/trustProxies: "10.0.0.0\/33" is not an IP address/);
    expect(() => new ClientAddresses(['proxy.internal'])).toThrow(/"proxy.internal"/);
  });
});

describe('callerOf', () => {
  const http = { method: 'POST', url: '/mcp', headers: headers({}) };

  it('counts a principal by its issuer and subject, so equal subjects of two issuers differ', () => {
    const a = callerOf({ principal: { subject: 'alice', scopes: [], claims: { iss: 'https://a.example' } }, clientAddress: '203.0.113.9', httpRequest: http });
    const b = callerOf({ principal: { subject: 'alice', scopes: [], claims: { iss: 'https://b.example' } }, clientAddress: '203.0.113.9', httpRequest: http });
    expect(a).toMatchObject({ kind: 'principal', id: 'alice' });
    expect(a.key).not.toBe(b.key);
  });

  it('counts an anonymous HTTP caller by address, and one whose address is unknown as one unknown caller', () => {
    expect(callerOf({ principal: undefined, clientAddress: '203.0.113.9', httpRequest: http })).toEqual({ key: 'a:203.0.113.9', kind: 'address', id: '203.0.113.9' });
    expect(callerOf({ principal: undefined, clientAddress: undefined, httpRequest: http })).toMatchObject({ kind: 'address', id: 'unknown' });
  });

  it('counts the one client of a stdio or in-memory connection as local', () => {
    expect(callerOf({ principal: undefined, clientAddress: undefined, httpRequest: undefined })).toEqual({ key: 'local', kind: 'local' });
  });
});
