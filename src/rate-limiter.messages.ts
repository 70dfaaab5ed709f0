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

export const limiterMessages = {
  invalidOption: (where: string, option: string, value: unknown, expected: string): string =>
    `${where}: option '${option}' must be ${expected}, got ${show(value)}`,
  unknownOption: (where: string, option: string, known: readonly string[]): string =>
    `${where}: unknown option '${option}'; the options are ${known.join(', ')}`,
  conflictingOptions: (where: string, first: string, second: string): string =>
    `${where}: options '${first}' and '${second}' exclude each other; pass only one`,
  unguardedGateway: (handler: string): string =>
    `${handler} has rate limits, but Nest runs no global guard on WebSocket gateways: add ` +
    `@UseGuards(RateLimitGuard) to the gateway or the method, or its limits are not enforced`,
  limitsOnProvider: (where: string): string =>
    `${where} has rate limits, but it is a provider, not a controller, resolver or gateway: ` +
    `no guard runs when its methods are called, so its limits are not enforced. Use ` +
    `RateLimiterFactory inside the method to limit it`,
  uncoveredHandler: (handler: string): string =>
    `${handler} has rate limits, but no RateLimitGuard covers it (global: false, and no ` +
    `@UseGuards(RateLimitGuard) on the method or its class): its limits are not enforced`,
  evictingRedis: (policy: string, maxmemory: string): string =>
    `Redis has maxmemory ${maxmemory} with maxmemory-policy '${policy}': it may evict limit ` +
    `state under memory pressure and hand out permits early. Use 'noeviction' (or a ` +
    `'volatile-*' policy on a Redis whose other keys have TTLs) for rate limiting`,
  invalidTemplate: (where: string, template: string, reason: string): string =>
    `${where}: invalid key template '${template}': ${reason}`,
  sharedKey: (where: string, form: string, otherWhere: string, otherForm: string): string =>
    `${where} and ${otherWhere} can write the same Redis key ('${form}' and '${otherForm}', * being a request value): limits of different kinds on one key break each other's state. Give one of them another prefix or key`,
  duplicateName: (where: string, name: string): string =>
    `${where}: the name '${name}' is given to two limits of this handler; each limit's name must be unique on its handler`,
  emptyClientIp: (where: string): string =>
    `${where}: the client IP is empty (a server listening on a unix socket, or a transport without addresses), so every such request shares one key. Pass resolveIp to key them apart`,
};
