import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { Observable, from, mergeMap, catchError, throwError } from 'rxjs';
import { takeRelease } from './concurrency-release';

/**
 * Gives back `@ConcurrencyLimit` slots as soon as the handler is done, before the response
 * is sent. `@ConcurrencyLimit` attaches it to its handler or class.
 */
@Injectable()
export class ConcurrencyReleaseInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const release = takeRelease(context);
    if (!release) return next.handle();
    return next.handle().pipe(
      mergeMap((value) => from(release().then(() => value))),
      catchError((error: unknown) => from(release()).pipe(mergeMap(() => throwError(() => error)))),
    );
  }
}
