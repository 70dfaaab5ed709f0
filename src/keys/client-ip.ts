import { formatIpv6, parseIpv6 } from './ip-subnet';

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
/** `[2001:db8::1]` or `[2001:db8::1]:443`, as a proxy may write an IPv6 client. */
const BRACKETED = /^\[([^\]]*)\](?::\d{1,5})?$/;
/** `9.9.9.9:50001`: a proxy that appends the client's port. */
const IPV4_WITH_PORT = /^([\d.]+):\d{1,5}$/;

/**
 * The client address as keys count it, one spelling per client, so that a client cannot
 * take a fresh limit by writing its address another way, and a proxy's way of writing it
 * does not split one client in several keys:
 * - `[2001:db8::1]`, `[2001:db8::1]:443` and `9.9.9.9:50001` lose their brackets and port;
 * - IPv4 is written in decimal without leading zeros. A leading zero is read as decimal
 *   (`1.2.3.010` is `1.2.3.10`; `inet_aton` would read octal 8): proxies write decimal, and
 *   this way `1.2.3.04` and `1.2.3.4` are one client;
 * - an IPv4-mapped IPv6 address in any spelling (`::ffff:1.2.3.4`, `::ffff:102:304`, what a
 *   dual-stack server or a proxy reports for an IPv4 client) is the IPv4 address;
 * - any other IPv6 address is written as RFC 5952 says (lowercase, shortest, zone dropped).
 * Anything that is no address after that (a value from `resolveIp`) is returned as given.
 */
export function normalizeClientIp(raw: string): string {
  // Most addresses are read already canonical (and IP keys normalise the normalised address
  // again): returned as they are, without the parsing below.
  if (isCanonicalIpv4(raw)) return raw;
  let ip = raw.trim();
  const bracketed = BRACKETED.exec(ip);
  if (bracketed) ip = bracketed[1];
  else ip = IPV4_WITH_PORT.exec(ip)?.[1] ?? ip;
  const ipv4 = canonicalIpv4(ip);
  if (ipv4 !== undefined) return ipv4;
  if (!ip.includes(':')) return raw;
  const groups = parseIpv6(ip);
  if (!groups) return raw;
  if (isIpv4Mapped(groups)) {
    return [groups[6] >> 8, groups[6] & 0xff, groups[7] >> 8, groups[7] & 0xff].join('.');
  }
  return formatIpv6(groups);
}

const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;

/** `1.2.3.4` as {@link canonicalIpv4} writes it: four decimal bytes, no leading zero. */
function isCanonicalIpv4(text: string): boolean {
  let dots = 0;
  let octet = 0;
  let digits = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === DOT) {
      if (digits === 0 || ++dots > 3) return false;
      octet = 0;
      digits = 0;
    } else if (code >= ZERO && code <= NINE) {
      if (digits === 1 && octet === 0) return false; // a leading zero
      octet = octet * 10 + code - ZERO;
      if (++digits > 3 || octet > 255) return false;
    } else {
      return false;
    }
  }
  return dots === 3 && digits > 0;
}

function canonicalIpv4(ip: string): string | undefined {
  const octets = IPV4.exec(ip);
  if (!octets) return undefined;
  const bytes = octets.slice(1).map((octet) => parseInt(octet, 10));
  return bytes.every((byte) => byte <= 255) ? bytes.join('.') : undefined;
}

/** `::ffff:a.b.c.d`: five zero groups, then `ffff`. */
function isIpv4Mapped(groups: readonly number[]): boolean {
  return groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff;
}
