import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants';
import { Observable, catchError, concatWith, defer, ignoreElements, throwError } from 'rxjs';
import { takeSettle } from './counted-outcomes';

/**
 * Settles a request's outcome for limits with `count: 'failures' | 'successes'` before
 * the response is written: a thrown error is a failure; a result is a failure when its
 * status is >= 400 (`@HttpCode`, or a status the handler set on the response). The limit
 * decorators attach it only where `count` is given: an app-wide interceptor would cost
 * every request of the app.
 */
@Injectable()
export class CountOutcomeInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const settle = takeSettle(context);
    if (!settle) return next.handle();
    return next.handle().pipe(
      concatWith(defer(() => settle(statusOf(context) >= 400)).pipe(ignoreElements())),
      catchError((error: unknown) =>
        defer(() => settle(true)).pipe(concatWith(throwError(() => error)), ignoreElements()),
      ),
    );
  }
}

/** The status the response will have: 200 where there is no HTTP response. */
function statusOf(context: ExecutionContext): number {
  if (context.getType() !== 'http') return 200;
  const declared = Reflect.getMetadata(HTTP_CODE_METADATA, context.getHandler()) as unknown;
  if (typeof declared === 'number') return declared;
  const response = context.switchToHttp().getResponse();
  const status = response?.statusCode ?? response?.raw?.statusCode;
  return typeof status === 'number' ? status : 200;
}
