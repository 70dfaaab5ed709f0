import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { INTERCEPTORS_METADATA } from '@nestjs/common/constants';
import { from, mergeMap, Observable } from 'rxjs';
import { ConcurrencyReleaseInterceptor } from './concurrency-release';
import { CountOutcomeInterceptor } from './count-outcome.interceptor';
import { RequestLedger } from './request-ledger';

/**
 * The guard's second phase, which Nest runs after every guard:
 * - decides the limits the guard deferred because their key needs a user that the app's own
 *   guards had not set yet (a denial is thrown from here, as the guard would throw it);
 * - gives back concurrency slots, and settles `count` modes and `settle`, once the handler
 *   has finished.
 * The module binds it to exactly the controllers, resolvers and gateways whose limits need
 * it (discovery/interceptor-binding.ts), and first among the app's own global interceptors
 * when it has some, so that a cache there cannot answer first; an app with none gets no
 * global interceptor of ours, so a handler with nothing to do after the guard runs through
 * no interceptor of ours. Binding it yourself as well decides
 * nothing twice: each piece of pending work is taken once, by whichever instance runs first.
 *
 * @publicApi
 */
@Injectable()
export class RateLimitInterceptor implements NestInterceptor {
  private readonly releaseSlots = new ConcurrencyReleaseInterceptor();
  private readonly countOutcome = new CountOutcomeInterceptor();

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const handle = () =>
      this.releaseSlots.intercept(context, {
        handle: () => this.countOutcome.intercept(context, next),
      });
    const decide = RequestLedger.take(context, 'deferred');
    return decide ? from(decide()).pipe(mergeMap(handle)) : handle();
  }
}

/**
 * Whether RateLimitInterceptor is bound on the request's handler or its class (by the module,
 * or the app): the guard may then defer to it.
 */
export function interceptorBoundFor(context: ExecutionContext): boolean {
  const bound = [
    ...((Reflect.getMetadata(INTERCEPTORS_METADATA, context.getClass()) as unknown[]) ?? []),
    ...((Reflect.getMetadata(INTERCEPTORS_METADATA, context.getHandler()) as unknown[]) ?? []),
  ];
  return bound.some(isRateLimitInterceptor);
}

/** Whether an entry of a handler's interceptors is RateLimitInterceptor (a class or an instance). */
export function isRateLimitInterceptor(bound: unknown): boolean {
  return bound === RateLimitInterceptor || bound instanceof RateLimitInterceptor;
}
