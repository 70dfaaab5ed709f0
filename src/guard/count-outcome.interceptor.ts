import {
  CallHandler,
  ExecutionContext,
  Injectable,
  InternalServerErrorException,
  NestInterceptor,
  StreamableFile,
} from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants';
import {
  EMPTY,
  Observable,
  catchError,
  concatWith,
  defer,
  finalize,
  ignoreElements,
  mergeMap,
  tap,
  throwError,
} from 'rxjs';
import { rawResponse } from './concurrency-release';
import { managesResponse } from './managed-response';
import { forContext } from '../context/context-exception';
import { whenAnswered } from './response-answered';
import { takeSettle } from './settlement';

/**
 * Settles a request's limits with `count: 'failures' | 'successes'` or `settle` once its
 * handler has finished (settlement.ts): a thrown error is a failure; a result is a failure
 * when its status is >= 400 (`@HttpCode`, or a status the handler set on the response). It
 * settles before the response is written, so a client's next request finds it done; a
 * response that goes on after the handler returns (a `StreamableFile`, or a handler that
 * took the response with `@Res()`) settles when the handler has answered, by its status.
 * A client that leaves meanwhile changes nothing. A `settle` that is invalid answers 500
 * while the response is still to be written, and is only logged after. The limit
 * decorators attach it only where needed: an app-wide interceptor would cost every request.
 */
@Injectable()
export class CountOutcomeInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const settle = takeSettle(context);
    if (!settle) return next.handle();
    let result: unknown;
    let handedOver = false;
    const afterResult = defer(() => {
      if (
        context.getType() === 'http' &&
        (result instanceof StreamableFile || managesResponse(context))
      ) {
        const raw = rawResponse(context.switchToHttp().getResponse());
        if (raw) {
          handedOver = true;
          whenAnswered(raw, (status) => void settle({ failed: status >= 400, result }));
          return EMPTY;
        }
      }
      return settle({ failed: statusOf(context) >= 400, result });
    }).pipe(
      mergeMap((valid) =>
        valid ? EMPTY : throwError(() => forContext(context, new InternalServerErrorException())),
      ),
    );
    return next.handle().pipe(
      tap((value) => (result = value)),
      concatWith(afterResult),
      catchError((error: unknown) =>
        // The handler's own error goes on; an invalid settle was logged.
        defer(() => settle({ failed: true, error })).pipe(
          concatWith(throwError(() => error)),
          ignoreElements(),
        ),
      ),
      // A subscriber that leaves early (an SSE client gone): the stream so far decides.
      finalize(() => {
        if (!handedOver) void settle({ failed: statusOf(context) >= 400, result });
      }),
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
