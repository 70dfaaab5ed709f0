import { createHash } from 'node:crypto';
import { normalizeClientIp } from './client-ip';
import { LimitType } from '../contracts/limit-type.enum';

/** Longest key part kept as is; a longer one is hashed ({@link boundKeyPart}). */
export const MAX_KEY_PART_LENGTH = 256;

/** What a key part may depend on, already resolved from the request by the guard. */
interface KeyPartRequest {
  /** Client IP address as keys count it: `resolveIp`'s, an IPv6 one reduced to its subnet. */
  ip: string;
  /** Authenticated user id, as `resolveUser` returned it; absent for anonymous requests. */
  userId?: string | number | null;
  /** The evaluated `key` template; required for `LimitType.CUSTOM`. */
  custom?: string;
}

/**
 * Starts a hashed part. Escaped text never holds a `%` followed by `#` (a `%` is always the
 * start of `%25`, `%7B`, `%7D` or `%7E`), so no part kept as is can equal a hashed one: a
 * client cannot send a digest as a value to reach the state of a long key.
 */
const HASHED_PART_MARKER = '%#';

/**
 * Keeps Redis keys bounded whatever the client sends: a part up to
 * {@link MAX_KEY_PART_LENGTH} characters is returned unchanged, a longer one becomes
 * `%#<kind>:<SHA-1 hex>` ({@link HASHED_PART_MARKER}), `kind` being the name of the
 * limit's kind (`countLimit` for `@CountLimit`):
 * hashed parts of two kinds never meet on one key, and of one kind they are the keys their
 * limits share on purpose.
 */
export function boundKeyPart(part: string, kind: string): string {
  if (part.length <= MAX_KEY_PART_LENGTH) return part;
  return hashedPartHead(kind) + createHash('sha1').update(part).digest('hex');
}

/** What every hashed part of a kind starts with: `%#<kind>:`. */
export function hashedPartHead(kind: string): string {
  return `${HASHED_PART_MARKER}${kind}:`;
}

/**
 * Starts every key part the library derives from the method, IP or user. Key text that
 * templates and factory keys bring is escaped by {@link escapeKeyText}, which leaves no raw
 * `~` in it, so no value a client sends can make a template's key equal to a derived key
 * (docs/design.md#keys: else a client could spend another user's or IP's limit).
 */
export const DERIVED_KEY_MARKER = '~';

const ESCAPED_CHARACTERS = /[%{}~]/g;
const NEEDS_ESCAPING = /[%{}~]/;

/**
 * Percent-encodes `%`, `{`, `}` and `~` (`%25`, `%7B`, `%7D`, `%7E`): braces in a key would
 * choose its Redis Cluster hash slot (a client could crowd one slot), `~` marks derived
 * keys, and `%` keeps the encoding one-to-one. Text without them is returned as is.
 */
export function escapeKeyText(text: string): string {
  if (!NEEDS_ESCAPING.test(text)) return text;
  return text.replace(
    ESCAPED_CHARACTERS,
    (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/**
 * The key part of a template's value or a factory key: escaped, then bounded. A factory key
 * and a template that evaluates to the same text therefore share state (docs/design.md#keys).
 */
export function customKeyPart(text: string, kind: string): string {
  return boundKeyPart(escapeKeyText(text), kind);
}

/** A derived part: the marker, then the escaped and bounded text (the marker survives hashing). */
function derivedKeyPart(text: string, kind: string): string {
  return DERIVED_KEY_MARKER + boundKeyPart(escapeKeyText(text), kind);
}

/**
 * Builds the part of a limit's key that tells one counted subject from another
 * (docs/design.md#keys), `handlerName` being `ClassName.methodName`:
 *
 * | limitType | part                                                               |
 * |-----------|--------------------------------------------------------------------|
 * | METHOD    | `~ClassName.methodName`                                            |
 * | IP        | `~ClassName.methodName:<ip>`                                       |
 * | USER      | `~ClassName.methodName:<userId>`; when `userId` is `undefined`,    |
 * |           | `null` or `''`: `~ClassName.methodName:ip:<ip>` (anonymous)        |
 * | CUSTOM    | `request.custom`, the evaluated key template, escaped              |
 *
 * `<ip>` goes through {@link normalizeClientIp}; the caller has already reduced an IPv6 address
 * to its subnet (`ipForKey`). IPv6 addresses keep their colons (`~Cls.m:2001:db8::/56`),
 * which is unambiguous because the part ends the key. An empty IP (a non-HTTP context
 * without an address) leaves the part ending in `:`, i.e. one limit shared by those requests.
 * Derived parts start with {@link DERIVED_KEY_MARKER}; every part is escaped
 * ({@link escapeKeyText}) and bounded ({@link boundKeyPart}, which names `kind` in a
 * hashed part).
 *
 * @throws Error for `LimitType.CUSTOM` without `request.custom`.
 */
export function keyPart(
  limitType: LimitType,
  handlerName: string,
  request: KeyPartRequest,
  /** The name of the limit's kind, which a hashed part carries ({@link boundKeyPart}). */
  kind: string,
): string {
  switch (limitType) {
    case LimitType.METHOD:
      return derivedKeyPart(handlerName, kind);
    case LimitType.IP:
      return derivedKeyPart(`${handlerName}:${normalizeClientIp(request.ip)}`, kind);
    case LimitType.USER: {
      const { userId } = request;
      return userId === undefined || userId === null || userId === ''
        ? derivedKeyPart(`${handlerName}:ip:${normalizeClientIp(request.ip)}`, kind)
        : derivedKeyPart(`${handlerName}:${userId}`, kind);
    }
    case LimitType.CUSTOM:
      if (request.custom === undefined) {
        throw new Error(`A CUSTOM limit on ${handlerName} needs its evaluated key template`);
      }
      return customKeyPart(request.custom, kind);
    default:
      // Reachable only from untyped JavaScript; a silent `undefined` key would merge limits.
      throw new Error(`Unknown limitType '${String(limitType)}' on ${handlerName}`);
  }
}

/**
 * {@link keyPart} for one handler's IP or USER limit, with what no request changes (the
 * escaped handler name) built once: the same part for the same request, for less work.
 */
export function compileKeyPart(
  limitType: LimitType.IP | LimitType.USER,
  handlerName: string,
  kind: string,
): (ip: string, userId?: string | number | null) => string {
  // Escaping works character by character, and leaves `:` as it is.
  const head = DERIVED_KEY_MARKER + escapeKeyText(handlerName) + ':';
  const anonymousHead = `${head}ip:`;
  const derived = (start: string, text: string): string => {
    const part = start + escapeKeyText(text);
    if (part.length <= DERIVED_KEY_MARKER.length + MAX_KEY_PART_LENGTH) return part;
    return DERIVED_KEY_MARKER + boundKeyPart(part.slice(DERIVED_KEY_MARKER.length), kind);
  };
  if (limitType === LimitType.IP) return (ip) => derived(head, normalizeClientIp(ip));
  return (ip, userId) =>
    userId === undefined || userId === null || userId === ''
      ? derived(anonymousHead, normalizeClientIp(ip))
      : derived(head, String(userId));
}
