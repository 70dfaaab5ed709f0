import { createHash } from 'node:crypto';
import { LimitType } from './limit-type.enum';

/** Longest key part kept as is; a longer one is replaced by its 40-character SHA-1 hex. */
export const MAX_KEY_PART_LENGTH = 256;

/** What a key part may depend on, already resolved from the request by the guard. */
export interface KeyPartRequest {
  /** Client IP address, as `resolveIp` returned it. */
  ip: string;
  /** Authenticated user id, as `resolveUser` returned it; absent for anonymous requests. */
  userId?: string | number | null;
  /** The evaluated `key` template; required for `LimitType.CUSTOM`. */
  custom?: string;
}

const IPV4_MAPPED_PREFIX = '::ffff:';

/**
 * Returns the address a client is counted under. An IPv4-mapped IPv6 address
 * (`::ffff:1.2.3.4`, what a dual-stack server reports for IPv4 clients) becomes `1.2.3.4`, so
 * one client has one key whichever socket family accepted it. Any other address, IPv6
 * included, is returned unchanged: Node already reports IPv6 in canonical compressed form.
 */
export function normalizeIp(ip: string): string {
  if (
    ip.length > IPV4_MAPPED_PREFIX.length &&
    ip.slice(0, IPV4_MAPPED_PREFIX.length).toLowerCase() === IPV4_MAPPED_PREFIX
  ) {
    const rest = ip.slice(IPV4_MAPPED_PREFIX.length);
    // `::ffff:102:304` is the hex spelling of a mapped address; only the dotted one is unwrapped.
    if (rest.includes('.') && !rest.includes(':')) return rest;
  }
  return ip;
}

/**
 * Keeps Redis keys bounded whatever the client sends: a part up to
 * {@link MAX_KEY_PART_LENGTH} characters is returned unchanged, a longer one becomes its
 * SHA-1 hex digest (40 characters).
 */
export function boundKeyPart(part: string): string {
  if (part.length <= MAX_KEY_PART_LENGTH) return part;
  return createHash('sha1').update(part).digest('hex');
}

/**
 * Builds the part of a limit's key that tells one counted subject from another
 * (DESIGN §2), `handlerName` being `ClassName.methodName`:
 *
 * | limitType | part                                                              |
 * |-----------|-------------------------------------------------------------------|
 * | METHOD    | `ClassName.methodName`                                            |
 * | IP        | `ClassName.methodName:<ip>`                                       |
 * | USER      | `ClassName.methodName:<userId>`; when `userId` is `undefined`,    |
 * |           | `null` or `''`: `ClassName.methodName:ip:<ip>` (anonymous)        |
 * | CUSTOM    | `request.custom`, the evaluated key template, as is               |
 *
 * `<ip>` goes through {@link normalizeIp}; IPv6 addresses keep their colons
 * (`Cls.m:2001:db8::1`), which is unambiguous because the part ends the key. A client
 * rotating through its IPv6 /64 gets a key per address. An empty IP (a non-HTTP context
 * without an address) leaves the part ending in `:`, i.e. one limit shared by those requests.
 * The result goes through {@link boundKeyPart}.
 *
 * @throws Error for `LimitType.CUSTOM` without `request.custom`.
 */
export function keyPart(
  limitType: LimitType,
  handlerName: string,
  request: KeyPartRequest,
): string {
  switch (limitType) {
    case LimitType.METHOD:
      return boundKeyPart(handlerName);
    case LimitType.IP:
      return boundKeyPart(`${handlerName}:${normalizeIp(request.ip)}`);
    case LimitType.USER: {
      const { userId } = request;
      return userId === undefined || userId === null || userId === ''
        ? boundKeyPart(`${handlerName}:ip:${normalizeIp(request.ip)}`)
        : boundKeyPart(`${handlerName}:${userId}`);
    }
    case LimitType.CUSTOM:
      if (request.custom === undefined) {
        throw new Error(`A CUSTOM limit on ${handlerName} needs its evaluated key template`);
      }
      return boundKeyPart(request.custom);
    default:
      // Reachable only from untyped JavaScript; a silent `undefined` key would merge limits.
      throw new Error(`Unknown limitType '${String(limitType)}' on ${handlerName}`);
  }
}
