import * as ipaddr from 'ipaddr.js';

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/**
 * Which address a request came from. The TCP peer, unless the peer is a proxy the author trusts:
 * then the `Forwarded` (RFC 7239) or `X-Forwarded-For` header is read from the right, skipping
 * the trusted proxies, and the first address they did not add is the client's. A header from a
 * peer that is not trusted is ignored (anyone can write one); when both headers are present and
 * name different clients, one was written by the client, and the peer is taken as the client.
 */
export class ClientAddresses {
  private readonly trusted: readonly Range[];

  /**
   * `trustProxies`: the proxies' addresses or CIDR ranges (`10.0.0.0/8`, `::1`), or the names
   * `loopback`, `private` (RFC 1918, unique local) and `uniquelocal`.
   */
  constructor(trustProxies: readonly string[] = []) {
    this.trusted = trustProxies.flatMap((entry) => rangesOf(entry));
  }

  /** The client's address: the peer's, or the nearest untrusted hop its trusted proxies name. */
  resolve(peer: string | undefined, headers: { get(name: string): string | null } | undefined): string | undefined {
    if (peer === undefined || this.trusted.length === 0 || headers === undefined || !this.isTrusted(peer)) return normalise(peer);
    const forwarded = headers.get('forwarded');
    const xff = headers.get('x-forwarded-for');
    const byForwarded = forwarded ? this.walk(peer, forwardedHops(forwarded)) : undefined;
    const byXff = xff ? this.walk(peer, xffHops(xff)) : undefined;
    // A proxy keeps one of the two headers and passes the other on as the client wrote it: when
    // they name different clients, one is forged and nothing tells which, so the peer is the client.
    if (byForwarded !== undefined && byXff !== undefined && byForwarded !== byXff) return normalise(peer);
    return byForwarded ?? byXff ?? normalise(peer);
  }

  /** The nearest hop the trusted proxies did not add, from the right of `hops`, normalised; undefined for no hops. */
  private walk(peer: string, hops: readonly string[]): string | undefined {
    // A header that names no hop (`Forwarded: proto=https`) says nothing of the client.
    if (hops.length === 0) return undefined;
    let client = peer;
    for (let i = hops.length - 1; i >= 0; i--) {
      if (!this.isTrusted(client)) break;
      client = hops[i];
    }
    return normalise(client);
  }

  private isTrusted(address: string): boolean {
    const parsed = parse(address);
    if (parsed === undefined) return false;
    return this.trusted.some(([range, bits]) => range.kind() === parsed.kind() && parsed.match(range as never, bits));
  }
}

/** The addresses the proxies appended to `Forwarded: for=…`, nearest last. */
function forwardedHops(forwarded: string): string[] {
  const hops: string[] = [];
  for (const element of forwarded.split(',')) {
    const pair = element.split(';').map((p) => p.trim()).find((p) => p.toLowerCase().startsWith('for='));
    if (pair === undefined) continue;
    let value = pair.slice(4).trim().replace(/^"|"$/g, '');
    if (value.startsWith('[')) value = value.slice(1, value.indexOf(']'));
    else if (/^[\d.]+:\d+$/.test(value)) value = value.slice(0, value.lastIndexOf(':'));
    hops.push(value);
  }
  return hops;
}

/** The addresses the proxies appended to `X-Forwarded-For`, nearest last. */
function xffHops(xff: string): string[] {
  return xff.split(',').map((hop) => hop.trim()).filter((hop) => hop !== '');
}

function rangesOf(entry: string): Range[] {
  if (entry === 'loopback') return [ipaddr.parseCIDR('127.0.0.0/8'), ipaddr.parseCIDR('::1/128')];
  if (entry === 'uniquelocal') return [ipaddr.parseCIDR('fc00::/7')];
  if (entry === 'private') return [ipaddr.parseCIDR('10.0.0.0/8'), ipaddr.parseCIDR('172.16.0.0/12'), ipaddr.parseCIDR('192.168.0.0/16'), ipaddr.parseCIDR('fc00::/7')];
  try {
    if (entry.includes('/')) return [ipaddr.parseCIDR(entry)];
    const address = ipaddr.parse(entry);
    return [[address, address.kind() === 'ipv4' ? 32 : 128]];
  } catch {
    throw new TypeError(`trustProxies: ${JSON.stringify(entry)} is not an IP address, a CIDR range, "loopback", "private" or "uniquelocal"`);
  }
}

/** An address as ipaddr reads it, IPv4-mapped IPv6 as IPv4; undefined for what is not one. */
function parse(address: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  try {
    const parsed = ipaddr.parse(address);
    return parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress() ? (parsed as ipaddr.IPv6).toIPv4Address() : parsed;
  } catch {
    return undefined;
  }
}

/** One spelling per address (`::ffff:1.2.3.4` is 1.2.3.4), so a limit cannot be dodged by rewriting it. */
function normalise(address: string | undefined): string | undefined {
  if (address === undefined) return undefined;
  return parse(address)?.toString() ?? address;
}
