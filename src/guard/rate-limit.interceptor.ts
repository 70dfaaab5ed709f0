import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { from, mergeMap, Observable } from 'rxjs';
import { ConcurrencyReleaseInterceptor } from './concurrency-release.interceptor';
import { CountOutcomeInterceptor } from './count-outcome.interceptor';
import { takeDeferred } from './deferred-limits';

/**
 * The guard's second phase, which the module registers as a global interceptor (Nest runs
 * interceptors after every guard):
 * - decides the limits the guard deferred because their key needs a user that the app's own
 *   guards had not set yet (a denial is thrown from here, as the guard would throw it);
 * - gives back concurrency slots and settles `count` modes for limits that no decorator's
 *   interceptor covers (module defaults).
 * A request with nothing pending costs three WeakMap lookups. Nest runs no global
 * interceptor on WebSocket gateways: bind it there with `@UseInterceptors(RateLimitInterceptor)`
 * for default limits that hold slots or count outcomes.
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
    const decide = takeDeferred(context);
    return decide ? from(decide()).pipe(mergeMap(handle)) : handle();
  }
}
