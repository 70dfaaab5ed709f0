import { ExecutionContext } from '@nestjs/common';
import { carrierOf } from './concurrency-release';

/** Decides a request's limits that waited for the app's guards; throws what the guard would. */
export type DeferredDecision = () => Promise<unknown>;

/** Requests whose limits a RateLimitGuard has decided, or deferred: one decision each. */
const claimed = new WeakSet<object>();
const deferred = new WeakMap<object, DeferredDecision>();

/**
 * Claims the decision of a request's limits for the guard that calls it: true the first
 * time, false when another RateLimitGuard (the global one, then `@UseGuards(RateLimitGuard)`)
 * already decided them, so a request is never counted twice. A request Nest gives no object
 * for cannot be claimed: each guard decides.
 */
export function claimDecision(context: ExecutionContext): boolean {
  const carrier = carrierOf(context);
  if (!carrier) return true;
  if (claimed.has(carrier)) return false;
  claimed.add(carrier);
  return true;
}

/**
 * Leaves a request's limits to RateLimitInterceptor, which runs after every guard: a USER
 * limit whose user an auth guard bound after ours will set. False when the request has no
 * object to carry it (the guard then decides at once).
 */
export function deferDecision(context: ExecutionContext, decide: DeferredDecision): boolean {
  const carrier = carrierOf(context);
  if (!carrier) return false;
  deferred.set(carrier, decide);
  return true;
}

/** The deferred decision of this request, if any; removed so it runs once. */
export function takeDeferred(context: ExecutionContext): DeferredDecision | undefined {
  const carrier = carrierOf(context);
  const decide = carrier && deferred.get(carrier);
  if (!decide) return undefined;
  deferred.delete(carrier);
  return decide;
}
