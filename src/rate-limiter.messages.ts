import { didYouMean } from './did-you-mean';

/**
 * Every configuration error message, in one place, so tests can assert the exact text.
 * `where` names the limit: `@RateLimit on SmsController.send`, or `rateLimiter(...)`.
 */
function show(value: unknown): string {
  if (typeof value === 'string') return `'${value}'`;
  if (typeof value === 'number' || typeof value === 'boolean' || value == null)
    return String(value);
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

function hours(seconds: number): string {
  const days = seconds / 86_400;
  if (days >= 2) return `${Math.round(days * 10) / 10} days`;
  if (seconds >= 7200) return `${Math.round(seconds / 360) / 10} hours`;
  return `${Math.round(seconds / 6) / 10} minutes`;
}

const isString = (value: unknown): value is string => typeof value === 'string';

function suggest(typed: string, known: readonly string[]): string {
  const near = didYouMean(typed, known);
  return near === undefined ? '' : ` (did you mean ${show(near)}?)`;
}

export const limiterMessages = {
  invalidOption: (where: string, option: string, value: unknown, expected: string): string =>
    `${where}: option '${option}' must be ${expected}, got ${show(value)}`,
  /** Every unknown option at once, each with the known one it is closest to, if any. */
  unknownOptions: (where: string, unknown: readonly string[], known: readonly string[]): string => {
    const named = unknown.map((name) => show(name) + suggest(name, known));
    const options = unknown.length === 1 ? 'option' : 'options';
    return `${where}: unknown ${options} ${named.join(', ')}; the options are ${known.join(', ')}`;
  },
  /** A value outside a fixed set (an enum): the set, and the value it is closest to. */
  invalidChoice: (where: string, option: string, value: unknown, choices: readonly unknown[]) =>
    `${where}: option '${option}' must be one of ${choices.map(show).join(', ')}, got ${show(value)}` +
    (typeof value === 'string' ? suggest(value, choices.filter(isString)) : ''),
  emptyRedisInProduction: (where: string, value: string): string =>
    `${where}: option 'redis' is ${value} with NODE_ENV=production (an environment variable ` +
    `unset or misspelt?): limits would be kept in memory, each process apart, so N servers ` +
    `would allow N times each limit. Set it, or pass inMemory: true if one process's memory ` +
    `is meant`,
  conflictingOptions: (where: string, first: string, second: string): string =>
    `${where}: options '${first}' and '${second}' exclude each other; pass only one`,
  unguardedGateway: (handler: string): string =>
    `${handler} has rate limits, but Nest runs no global guard on WebSocket gateways: add ` +
    `@UseGuards(RateLimitGuard) to the gateway or the method, or its limits are not enforced`,
  limitsOnProvider: (where: string): string =>
    `${where} has rate limits, but it is a provider, not a controller, resolver or gateway: ` +
    `no guard runs when its methods are called, so its limits are not enforced. Use ` +
    `RateLimiterFactory inside the method to limit it`,
  rpcUserFromMessage: (handlers: readonly string[]): string =>
    `USER limits on microservice handlers (${handlers.join(', ')}) read the user id from the ` +
    `caller's own message (its user.id) without the module option 'resolveUser', so any ` +
    `caller picks its own key: pass resolveUser, reading a user your app verified`,
  uncoveredHandler: (handler: string): string =>
    `${handler} has rate limits, but no RateLimitGuard covers it (global: false, and no ` +
    `@UseGuards(RateLimitGuard) on the method or its class): its limits are not enforced`,
  /** A `redis` option that cannot work: named as given (without its password), with why. */
  redisMisconfigured: (where: string, shown: string, cause: string): string =>
    `${where}: option 'redis' (${shown}): ${cause}`,
  evictingRedis: (policy: string, maxmemory: string): string =>
    `Redis has maxmemory ${maxmemory} with maxmemory-policy '${policy}': it may evict limit ` +
    `state under memory pressure and hand out permits early. Use 'noeviction' (or a ` +
    `'volatile-*' policy on a Redis whose other keys have TTLs) for rate limiting`,
  invalidTemplate: (where: string, template: string, reason: string): string =>
    `${where}: invalid key template '${template}': ${reason}`,
  sharedKey: (where: string, form: string, otherWhere: string, otherForm: string): string =>
    `${where} and ${otherWhere} can write the same Redis key ('${form}' and '${otherForm}', * being a request value): limits of different kinds on one key break each other's state. Give one of them another prefix or key`,
  misspeltKeyRoot: (where: string, template: string, root: string, near: string): string =>
    `${where}: key template '${template}' reads '${root}', which is no root of a request and would be looked up as a field of params, query and body (a 400 on every request without one): did you mean '${near}'? A field so named is read as 'body.${root}' (or 'query.', 'params.')`,
  misspeltSkip: (handler: string, name: string, near: string): string =>
    `${handler}: @SkipRateLimit('${name}') names no limit of this handler, so it skips nothing: did you mean '${near}'?`,
  duplicateName: (where: string, name: string): string =>
    `${where}: the name '${name}' is given to two limits of this handler; each limit's name must be unique on its handler`,
  looksLikeMilliseconds: (
    where: string,
    option: string,
    value: number,
    readings: { milliseconds: string; seconds: string },
  ): string =>
    `${where}: ${option} ${value} is in seconds (${hours(value)}); if you meant ${value} milliseconds, write ${option}: '${readings.milliseconds}', and if you meant seconds, ${option}: '${readings.seconds}' says so. Time options take seconds or a duration string ('500ms', '30s', '1m', '1h', '1d')`,
  bareDuration: (
    where: string,
    option: string,
    value: number,
    readings: { milliseconds: string; seconds: string },
  ): string =>
    `${where}: option '${option}' is a bare number of seconds from 1000 up (${value}: ${hours(value)}), which strictDurations refuses: write '${readings.milliseconds}' for ${value} milliseconds or '${readings.seconds}' for ${value} seconds`,
  settleUnsupported: (where: string): string =>
    `${where}: option 'settle' needs a limit that can both give permits back and take more after the handler; this one cannot (a concurrency slot is always given back whole when the work ends)`,
  duplicateDefaultName: (where: string, name: string): string =>
    `${where}: the name '${name}' is given to two defaults; each default's name must be unique`,
  userFallback: (handler: string): string =>
    `${handler}: a request has no user, even after the app's guards ran: its USER limits count it by client IP (a key template that reads user answers 400). Authenticate before this handler, or expect anonymous requests here`,
  emptyClientIp: (where: string): string =>
    `${where}: the client IP is empty (a server listening on a unix socket, or a transport without addresses), so every such request shares one key. Pass resolveIp to key them apart`,
  untrustedProxy: (ip: string): string =>
    `A request carries X-Forwarded-For, but the app trusts no proxy: IP limits key every ` +
    `client by the address that connected, here '${ip}'. Behind a proxy or load balancer ` +
    `that is the proxy, so every client shares one limit. Trust it: on Express ` +
    `app.set('trust proxy', 1) (the number of proxies in front), on Fastify ` +
    `new FastifyAdapter({ trustProxy: 1 }); or pass resolveIp. Not behind a proxy? Then a ` +
    `client sent the header itself and ignoring it is right (said once per app)`,
};
