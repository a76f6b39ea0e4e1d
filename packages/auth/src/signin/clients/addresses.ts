import ipaddr from 'ipaddr.js';

/** What each of ipaddr.js's special ranges is, in a refusal. */
const RANGE_NAMES: Readonly<Record<string, string>> = {
  unspecified: 'the unspecified address',
  broadcast: 'the broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a carrier-grade NAT address (100.64.0.0/10)',
  private: 'a private address (RFC 1918)',
  reserved: 'a reserved or documentation address',
  benchmarking: 'a benchmarking address',
  as112: 'an AS112 address',
  as112v6: 'an AS112 address',
  amt: 'an AMT relay address',
  uniqueLocal: 'a unique-local address (fc00::/7)',
  deprecatedSiteLocal: 'a site-local address (fec0::/10)',
  discard: 'a discard-only address (100::/64)',
  rfc6145: 'an IPv4-translated address (::ffff:0:0/96)',
  rfc6052: 'a local-use NAT64 address (64:ff9b:1::/48)',
  '6to4': 'a 6to4 address (2002::/16)',
  teredo: 'a Teredo address (2001::/32)',
  deprecatedOrchid: 'an ORCHID address',
  orchid2: 'an ORCHIDv2 address',
  droneRemoteIdProtocolEntityTags: 'a DRIP entity tag',
  segmentRouting: 'a segment-routing SID (5f00::/16)',
};

/** 64:ff9b::/96, the well-known NAT64 prefix (RFC 6052): its last 32 bits are a public IPv4 address or nothing reachable. */
const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96');
/** ::/96, IPv4-compatible addresses (deprecated by RFC 4291); `::` and `::1` are named on their own. */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

/**
 * Why an outgoing connection may not go to `address`, or undefined when it is public unicast.
 * Only ipaddr.js's `unicast` range is accepted: loopback, private, link-local, unique-local,
 * carrier-grade NAT, unspecified, multicast, broadcast, reserved and documentation ranges are
 * refused. An IPv6 address that embeds an IPv4 one is judged by that address (IPv4-mapped,
 * well-known NAT64) or refused outright (IPv4-compatible, 6to4, Teredo: their relays can reach
 * anything). Accepts `[v6]` as a URL spells it; IPv4 only in dotted-decimal form, as a resolver
 * answers and a socket connects (`127.1` and `0x7f.0.0.1` are refused, not interpreted).
 */
export function addressRefusal(address: string): string | undefined {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const parsed = ipaddr.IPv4.isValidFourPartDecimal(bare) ? ipaddr.IPv4.parse(bare) : parseIPv6(bare);
  if (parsed === undefined) return `${JSON.stringify(address)} is not an IP address`;

  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) return embeddedRefusal(address, 'an IPv4-mapped address', v6.toIPv4Address());
    if (v6.match(NAT64_WELL_KNOWN)) return embeddedRefusal(address, 'a NAT64 address', lastIPv4Of(v6));
    const range = v6.range();
    if (range === 'unicast' && v6.match(IPV4_COMPATIBLE)) {
      return `${address} is an IPv4-compatible address (deprecated), embedding ${lastIPv4Of(v6).toString()}`;
    }
    if (range === '6to4') return `${address} is ${RANGE_NAMES[range]}, embedding ${sixToFourIPv4Of(v6).toString()}`;
    return rangeRefusal(address, range);
  }
  return rangeRefusal(address, parsed.range());
}

/**
 * An IPv6 address, read as a socket would. ipaddr.js reads `::a.b.c.d` as `::ffff:a.b.c.d`
 * (IPv4-mapped) although it is `::` followed by 32 bits (IPv4-compatible), and takes hex and
 * octal IPv4 parts; the URL parser spells the address in plain hex first, and refuses those.
 * A zone (`%eth0`) is set aside: it matters only for link-local addresses, refused anyway.
 */
function parseIPv6(text: string): ipaddr.IPv6 | undefined {
  const withoutZone = text.split('%', 1)[0]!;
  if (!URL.canParse(`http://[${withoutZone}]/`)) return undefined;
  const hex = new URL(`http://[${withoutZone}]/`).hostname.slice(1, -1);
  return ipaddr.IPv6.isValid(hex) ? ipaddr.IPv6.parse(hex) : undefined;
}

/** What a special range is, or undefined for public unicast. */
function rangeName(range: string): string | undefined {
  return range === 'unicast' ? undefined : (RANGE_NAMES[range] ?? `in the special-purpose range ${range}`);
}

function rangeRefusal(address: string, range: string): string | undefined {
  const name = rangeName(range);
  return name === undefined ? undefined : `${address} is ${name}, not a public address`;
}

/** An IPv6 address is as good as the IPv4 address it stands for. */
function embeddedRefusal(address: string, kind: string, embedded: ipaddr.IPv4): string | undefined {
  const name = rangeName(embedded.range());
  return name === undefined ? undefined : `${address} is ${kind} of ${embedded.toString()}, which is ${name}, not a public address`;
}

function lastIPv4Of(address: ipaddr.IPv6): ipaddr.IPv4 {
  const [high, low] = address.parts.slice(6) as [number, number];
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/** 2002:AABB:CCDD::/48 routes to AA.BB.CC.DD (RFC 3056). */
function sixToFourIPv4Of(address: ipaddr.IPv6): ipaddr.IPv4 {
  const [high, low] = address.parts.slice(1, 3) as [number, number];
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}
