import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');
const WELL_KNOWN_NAT64 = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

/**
 * True only for addresses on the public internet. Everything else (loopback, RFC 1918, link-local and the cloud
 * metadata address, CGNAT, multicast, unspecified, broadcast, documentation, benchmarking and other reserved ranges,
 * IPv6 unique-local and site-local) is refused. IPv6 forms that carry an IPv4 address (IPv4-mapped, IPv4-translated,
 * NAT64 64:ff9b::/96, 6to4) are judged by the embedded IPv4 address, because that is where packets end up.
 */
export function isPublicAddress(address: string): boolean {
  const version = isIP(address);
  if (version === 4) return isPublicIPv4(ipaddr.IPv4.parse(address));
  if (version === 6) {
    const canonical = canonicalIPv6(address);
    return canonical !== undefined && isPublicIPv6(ipaddr.IPv6.parse(canonical));
  }
  return false;
}

/**
 * The WHATWG URL parser's form of an IPv6 address. ipaddr.js reads a dotted tail such as ::10.0.0.1 as IPv4-mapped,
 * which would judge an IPv4-compatible address by its tail; the canonical hex form avoids that. Zone ids (fe80::1%eth0)
 * are not valid in URLs and come back undefined, which refuses them.
 */
function canonicalIPv6(address: string): string | undefined {
  try {
    return new URL(`https://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return undefined;
  }
}

function isPublicIPv4(address: ipaddr.IPv4): boolean {
  return address.range() === 'unicast';
}

function isPublicIPv6(address: ipaddr.IPv6): boolean {
  const embedded = embeddedIPv4(address);
  if (embedded !== undefined) return isPublicIPv4(embedded);
  // Allow-list the IANA global unicast block so that unnamed oddities such as IPv4-compatible ::a.b.c.d stay out,
  // then drop the special ranges inside it (documentation, Teredo, ORCHID, benchmarking, ...).
  return address.match(GLOBAL_UNICAST_V6) && address.range() === 'unicast';
}

function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const range = address.range();
  const parts = address.parts;
  const lastTwoParts = (): ipaddr.IPv4 => fromParts(parts[6] ?? 0, parts[7] ?? 0);
  if (range === 'ipv4Mapped' || range === 'rfc6145') return lastTwoParts();
  // Only the well-known /96 NAT64 prefix puts the IPv4 address in the last 32 bits; the local-use 64:ff9b:1::/48
  // prefix may place it elsewhere and is refused as non-unicast below.
  if (range === 'rfc6052' && address.match(WELL_KNOWN_NAT64)) return lastTwoParts();
  if (range === '6to4') return fromParts(parts[1] ?? 0, parts[2] ?? 0);
  return undefined;
}

function fromParts(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}
