import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { EMPTY, Observable } from 'rxjs';
import { whenResponseEnds } from './concurrency-release';
import { RequestLedger } from './request-ledger';
import { respondsLater, untilHandlerEnds } from './managed-response';

/**
 * Gives back `@ConcurrencyLimit` slots when the handler's work is over: after its last value
 * (all of them, for an observable stream) and before Nest writes the response, or when it
 * fails, or when the subscriber leaves early (an SSE client that left). A response that goes
 * on after the handler returns (a `StreamableFile`, or a handler that took the response with
 * `@Res()`) holds the slot until that response ends. A piece of RateLimitInterceptor, which
 * the module binds only where a slot is held.
 */
@Injectable()
export class ConcurrencyReleaseInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const release = RequestLedger.take(context, 'release');
    if (!release) return next.handle();
    return untilHandlerEnds(next, {
      done: (last, handOver) => {
        if (!respondsLater(context, last)) return release();
        handOver();
        whenResponseEnds(context.switchToHttp().getResponse(), () => void release());
        return EMPTY;
      },
      failed: release,
      left: () => void release(),
    });
  }
}
