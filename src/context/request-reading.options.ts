/** The module's options that say how a request's user and address are read. */
export interface RequestReadingOptions {
  /** The user id for USER limits, default `req.user?.id ?? req.user?.sub`. */
  resolveUser?: (request: any) => string | number | undefined;
  /** The client IP, default `req.ip` (which honours the app's trust-proxy setting). */
  resolveIp?: (request: any) => string;
  /**
   * IP keys (and the anonymous fallback of USER keys) count an IPv6 client by its network
   * of this prefix length, default 56; `false` counts each full address. IPv4 is unaffected.
   */
  ipv6Subnet?: number | false;
}
