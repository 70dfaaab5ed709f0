/** IPv6 clients are counted by their /56 network by default (docs/design.md#keys). */
export const DEFAULT_IPV6_SUBNET = 56;

/**
 * The address an IP key counts: an IPv6 address reduced to its `/subnet` network
 * (`2001:db8:1:2ff::/56`), since one client or ISP customer usually holds a whole /56 or /64
 * and could otherwise rotate through addresses to get a fresh limit for each. IPv4 addresses,
 * anything that is not an IPv6 address, and `subnet === false` return the address unchanged.
 */
export function ipForKey(ip: string, subnet: number | false): string {
  if (subnet === false || !ip.includes(':')) return ip;
  const groups = parseIpv6(ip);
  if (!groups) return ip;
  const masked = groups.map((group, index) => {
    const kept = Math.min(16, Math.max(0, subnet - 16 * index));
    return group & ((0xffff << (16 - kept)) & 0xffff);
  });
  return `${formatIpv6(masked)}/${subnet}`;
}

// Validated here rather than with node:net's isIPv6: the library opens no sockets and
// imports no socket module (ioredis is its only transport).
const HEX_GROUP = /^[0-9a-f]{1,4}$/i;
const IPV4_TAIL = /^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

/**
 * The eight 16-bit groups of a valid IPv6 address (zone dropped, IPv4 tail converted), or
 * undefined for anything else.
 */
export function parseIpv6(address: string): number[] | undefined {
  let text = address.split('%')[0];
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    if (!IPV4_TAIL.test(tail)) return undefined;
    const bytes = tail.split('.').map(Number);
    if (bytes.some((byte) => byte > 255)) return undefined;
    const high = ((bytes[0] << 8) | bytes[1]).toString(16);
    const low = ((bytes[2] << 8) | bytes[3]).toString(16);
    text = `${text.slice(0, lastColon + 1)}${high}:${low}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const split = (part: string) => (part ? part.split(':') : []);
  const head = split(halves[0]);
  const rest = halves.length > 1 ? split(halves[1]) : [];
  const zeros = halves.length > 1 ? 8 - head.length - rest.length : 0;
  const groups = [...head, ...Array<string>(Math.max(0, zeros)).fill('0'), ...rest];
  if (groups.length !== 8 || !groups.every((group) => HEX_GROUP.test(group))) return undefined;
  return groups.map((group) => parseInt(group, 16));
}

/** RFC 5952 text: lowercase, no leading zeros, the longest run of two or more zero groups as `::`. */
export function formatIpv6(groups: readonly number[]): string {
  let bestStart = -1;
  let bestLength = 1;
  for (let start = 0; start < 8; start++) {
    let length = 0;
    while (start + length < 8 && groups[start + length] === 0) length++;
    if (length > bestLength) [bestStart, bestLength] = [start, length];
  }
  const hex = groups.map((group) => group.toString(16));
  if (bestStart < 0) return hex.join(':');
  const before = hex.slice(0, bestStart).join(':');
  const after = hex.slice(bestStart + bestLength).join(':');
  return `${before}::${after}`;
}
