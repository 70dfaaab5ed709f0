import { parseIpv6 } from './ip-subnet';

/** One network: its family, prefix length and address bits (host bits zero). */
export interface Cidr {
  family: 4 | 6;
  prefixLength: number;
  /** IPv4: an unsigned 32-bit number; IPv6: a 128-bit bigint. */
  bits: number | bigint;
}

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** A dotted-quad IPv4 address as an unsigned 32-bit number; undefined for anything else. */
export function ipv4Bits(address: string): number | undefined {
  const match = IPV4.exec(address);
  if (!match) return undefined;
  let bits = 0;
  for (let i = 1; i <= 4; i++) {
    const part = match[i];
    // '010' would be octal to some parsers and decimal to others: refused, not guessed.
    if (part.length > 1 && part[0] === '0') return undefined;
    const byte = Number(part);
    if (byte > 255) return undefined;
    bits = bits * 256 + byte;
  }
  return bits;
}

/** An IPv6 address as a 128-bit bigint; undefined for anything else. */
export function ipv6Bits(address: string): bigint | undefined {
  const groups = parseIpv6(address);
  if (!groups) return undefined;
  let bits = 0n;
  for (const group of groups) bits = (bits << 16n) | BigInt(group);
  return bits;
}

/** The top `prefixLength` bits of a 32-bit address (unsigned). */
export function maskIpv4(bits: number, prefixLength: number): number {
  if (prefixLength === 0) return 0;
  return (bits & (0xffffffff << (32 - prefixLength))) >>> 0;
}

const ALL_128 = (1n << 128n) - 1n;

/** The top `prefixLength` bits of a 128-bit address. */
export function maskIpv6(bits: bigint, prefixLength: number): bigint {
  return bits & ((ALL_128 >> BigInt(128 - prefixLength)) << BigInt(128 - prefixLength));
}

/**
 * Parses `'10.0.0.0/8'`, `'2001:db8::/32'`, or a bare address (one host); an IPv4-mapped
 * network (`'::ffff:198.51.100.0/120'`) is the IPv4 one. Returns the network, or why the
 * text is not one (for a start-up error that says what to fix).
 */
export function parseCidr(text: unknown): Cidr | string {
  if (typeof text !== 'string') return 'not a string';
  const slash = text.indexOf('/');
  const address = slash < 0 ? text : text.slice(0, slash);
  const lengthText = slash < 0 ? undefined : text.slice(slash + 1);
  const v4 = ipv4Bits(address);
  const v6 = v4 === undefined && !address.includes('%') ? ipv6Bits(address) : undefined;
  if (v4 === undefined && v6 === undefined) return `'${address}' is no IPv4 or IPv6 address`;
  const max = v4 !== undefined ? 32 : 128;
  const prefixLength = lengthText === undefined ? max : Number(lengthText);
  if (lengthText !== undefined && !/^\d{1,3}$/.test(lengthText)) {
    return `the prefix length '${lengthText}' is not a number`;
  }
  if (prefixLength > max) return `the prefix length ${prefixLength} is over ${max}`;
  if (v4 !== undefined) {
    const bits = maskIpv4(v4, prefixLength);
    if (bits !== v4)
      return `host bits are set (the network is ${formatIpv4(bits)}/${prefixLength})`;
    return { family: 4, prefixLength, bits };
  }
  const bits = maskIpv6(v6!, prefixLength);
  if (bits !== v6) return `host bits are set below the /${prefixLength} prefix`;
  // Clients are read as IPv4 when they come IPv4-mapped (client-ip.ts): so is such a network.
  if (bits >> 32n === 0xffffn && prefixLength >= 96) {
    return { family: 4, prefixLength: prefixLength - 96, bits: Number(bits & 0xffffffffn) };
  }
  return { family: 6, prefixLength, bits };
}

function formatIpv4(bits: number): string {
  return [24, 16, 8, 0].map((shift) => (bits >>> shift) & 255).join('.');
}
