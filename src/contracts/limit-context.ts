import type { ExecutionContext } from '@nestjs/common';
import type { Seconds } from './duration';

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

/**
 * A decorator's options with each numeric or time one {@link Resolvable}.
 *
 * @publicApi
 */
export type ResolvableOptions<T> = {
  [K in keyof T]: NonNullable<T[K]> extends Seconds ? Resolvable<NonNullable<T[K]>> : T[K];
};

/**
 * What a handler ended with, as a limit's `settle` sees it: its result (the value it
 * returned, a resolver's result, the last value of a stream), or the error it threw.
 *
 * @publicApi
 */
export interface HandlerOutcome {
  result?: unknown;
  error?: unknown;
}

/**
 * A limit's `settle`: the real cost of a request, in permits (an integer >= 0), once its
 * handler has finished. The permits reserved before the handler are corrected to it.
 *
 * @publicApi
 */
export type SettleFunction = (
  ctx: LimitContext,
  outcome: HandlerOutcome,
) => number | Promise<number>;
