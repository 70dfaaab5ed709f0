import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import {
  Observable,
  catchError,
  concatWith,
  defer,
  finalize,
  ignoreElements,
  throwError,
} from 'rxjs';
import { takeRelease } from './concurrency-release';

/**
 * Gives back `@ConcurrencyLimit` slots when the handler's result is complete: after its
 * last value (all of them, for a stream) and before Nest writes the response, or when it
 * fails, or when the subscriber leaves early. `@ConcurrencyLimit` attaches it to its
 * handler or class.
 */
@Injectable()
export class ConcurrencyReleaseInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const release = takeRelease(context);
    if (!release) return next.handle();
    return next.handle().pipe(
      concatWith(defer(release).pipe(ignoreElements())),
      catchError((error: unknown) =>
        defer(release).pipe(concatWith(throwError(() => error)), ignoreElements()),
      ),
      finalize(() => void release()),
    );
  }
}
