import { LimiterConfigError } from '../errors/limiter-config.error';
import { limiterMessages } from '../rate-limiter.messages';
import { Cidr, parseCidr } from './cidr';
import { NetworkSet } from './network-set';

/** The `allow` and `deny` options: networks in CIDR, or bare addresses. */
export interface NetworkLists {
  allow?: readonly string[];
  deny?: readonly string[];
}

/** What the networks say of one client: never limited, refused, or nothing (limited as usual). */
type NetworkVerdict = 'allow' | 'deny' | undefined;

const EXPECTED = "a network in CIDR ('10.0.0.0/8', '2001:db8::/32') or an address";

/**
 * The module's allow and deny networks (`forRoot({ allow, deny })`), parsed once. One
 * instance per module, provided under this class: whoever holds it (an admin page reading
 * lists from Redis) may replace the lists at run time with {@link setLists}, which takes
 * effect for the next request; the guard reads the lists on every request.
 */
export class NetworkPolicy {
  private allowed = new NetworkSet([]);
  private denied = new NetworkSet([]);
  private current: Required<NetworkLists> = { allow: [], deny: [] };

  constructor(lists: NetworkLists = {}, where = 'RateLimiterModule') {
    this.setLists(lists, where);
  }

  /** The lists as given last. */
  get lists(): Readonly<Required<NetworkLists>> {
    return this.current;
  }

  /** Whether any network is listed: without one the guard reads no address for this. */
  get active(): boolean {
    return this.allowed.size > 0 || this.denied.size > 0;
  }

  /**
   * Replaces both lists at once. Every entry is checked first: on a
   * {@link LimiterConfigError} the lists in force stay as they were.
   */
  setLists(lists: NetworkLists, where = 'NetworkPolicy.setLists'): void {
    const allow = parseList(lists.allow, 'allow', where);
    const deny = parseList(lists.deny, 'deny', where);
    this.allowed = new NetworkSet(allow);
    this.denied = new NetworkSet(deny);
    this.current = { allow: [...(lists.allow ?? [])], deny: [...(lists.deny ?? [])] };
  }

  /** `deny` when the address is in a denied network (deny wins), `allow` in an allowed one. */
  verdictFor(ip: string): NetworkVerdict {
    if (this.denied.has(ip)) return 'deny';
    if (this.allowed.has(ip)) return 'allow';
    return undefined;
  }
}

function parseList(list: unknown, option: string, where: string): Cidr[] {
  if (list === undefined) return [];
  if (!Array.isArray(list)) {
    throw new LimiterConfigError(
      limiterMessages.invalidOption(where, option, list, `an array of networks in CIDR`),
    );
  }
  return list.map((entry: unknown, i) => {
    const parsed = parseCidr(entry);
    if (typeof parsed === 'string') {
      throw new LimiterConfigError(
        limiterMessages.invalidOption(where, `${option}[${i}]`, entry, `${EXPECTED}: ${parsed}`),
      );
    }
    return parsed;
  });
}
