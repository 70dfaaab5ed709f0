import { Cidr, ipv4Bits, ipv6Bits, maskIpv4, maskIpv6 } from './cidr';

/**
 * A set of networks, parsed once, for one lookup per request: networks are grouped by
 * prefix length, so an address is masked once per distinct length (a few) and looked up in
 * a Set, whatever the number of networks.
 */
export class NetworkSet {
  private readonly ipv4 = new Map<number, Set<number>>();
  private readonly ipv6 = new Map<number, Set<bigint>>();
  readonly size: number;

  constructor(networks: readonly Cidr[]) {
    for (const network of networks) {
      const byLength: Map<number, Set<number | bigint>> = network.family === 4
        ? this.ipv4
        : this.ipv6;
      let bits = byLength.get(network.prefixLength);
      if (!bits) byLength.set(network.prefixLength, (bits = new Set()));
      bits.add(network.bits);
    }
    this.size = networks.length;
  }

  /** Whether the address (IPv4 dotted quad or IPv6 text) is in one of the networks. */
  has(address: string): boolean {
    if (this.size === 0 || address === '') return false;
    if (!address.includes(':')) {
      if (this.ipv4.size === 0) return false;
      const bits = ipv4Bits(address);
      if (bits === undefined) return false;
      for (const [length, networks] of this.ipv4) {
        if (networks.has(maskIpv4(bits, length))) return true;
      }
      return false;
    }
    if (this.ipv6.size === 0) return false;
    const bits = ipv6Bits(address);
    if (bits === undefined) return false;
    for (const [length, networks] of this.ipv6) {
      if (networks.has(maskIpv6(bits, length))) return true;
    }
    return false;
  }
}
