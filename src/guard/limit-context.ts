import { ExecutionContext } from '@nestjs/common';

/**
 * What a `skip` predicate or a resolvable option sees of one request. `request` is the
 * HTTP request (behind a GraphQL resolver too), the socket of a WebSocket message, or the
 * RPC context; `user` is its `user` property (on Fastify, `request.raw.user` too).
 *
 * @publicApi
 */
export interface LimitContext {
  request: any;
  user?: any;
  /** The client address (normalized; an IPv6 address whole, not its `ipv6Subnet` network). */
  ip: string;
  /** `ClassName.methodName` of the guarded handler. */
  handler: string;
  context: ExecutionContext;
}

/**
 * A value, or a function of the request that returns it (sync or async).
 *
 * @publicApi
 */
export type Resolvable<T> = T | ((ctx: LimitContext) => T | Promise<T>);

/**
 * Whether a limit does not apply to a request.
 *
 * @publicApi
 */
export type SkipPredicate = (ctx: LimitContext) => boolean | Promise<boolean>;

/** Builds the context once per request; `ip` is read only if a predicate asks for it. */
export function createLimitContext(
  context: ExecutionContext,
  request: any,
  readIp: () => string,
): LimitContext {
  return {
    request,
    // Fastify: Nest middleware sets the user on the raw Node request.
    user: request?.user ?? request?.raw?.user,
    get ip() {
      return readIp();
    },
    handler: `${context.getClass().name}.${context.getHandler().name}`,
    context,
  };
}

/**
 * A decorator's options with each numeric one {@link Resolvable}.
 *
 * @publicApi
 */
export type ResolvableOptions<T> = {
  [K in keyof T]: NonNullable<T[K]> extends number ? Resolvable<NonNullable<T[K]>> : T[K];
};
