/**
 * What a limit counts against, i.e. how the key part of its Redis key is built.
 *
 * - `METHOD`: one shared limit per handler (`ClassName.methodName`).
 * - `IP`: one limit per handler and client IP address.
 * - `USER`: one limit per handler and user id; anonymous requests are counted by IP.
 * - `CUSTOM`: the evaluated `key` template, e.g. `'sms:#{body.phone}'`.
 *
 * A decorator given a `key` but no `limitType` uses `CUSTOM`.
 *
 * @example
 * ```ts
 * @RateLimit({ rate: 10, burst: 1, limitType: LimitType.IP })
 * ```
 *
 * @publicApi
 */
export enum LimitType {
  IP = 'IP',
  USER = 'USER',
  METHOD = 'METHOD',
  CUSTOM = 'CUSTOM',
}
