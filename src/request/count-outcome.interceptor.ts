import {
  CallHandler,
  ExecutionContext,
  Injectable,
  InternalServerErrorException,
  NestInterceptor,
} from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants';
import { EMPTY, Observable, defer, mergeMap, throwError } from 'rxjs';
import { rawResponse } from './concurrency-release';
import { forContext } from '../context/context-exception';
import { respondsLater, untilHandlerEnds } from './managed-response';
import { whenAnswered } from './settlement';
import { RequestLedger } from './request-ledger';

/**
 * Settles a request's limits with `count: 'failures' | 'successes'` or `settle` once its
 * handler has finished (settlement.ts): a thrown error is a failure; a result is a failure
 * when its status is >= 400 (`@HttpCode`, or a status the handler set on the response). It
 * settles before the response is written, so a client's next request finds it done; a
 * response that goes on after the handler returns (a `StreamableFile`, or a handler that
 * took the response with `@Res()`) settles when the handler has answered, by its status.
 * A client that leaves meanwhile changes nothing. A `settle` that is invalid answers 500
 * while the response is still to be written, and is only logged after. A piece of
 * RateLimitInterceptor, which the module binds only where a limit needs it.
 */
@Injectable()
export class CountOutcomeInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const settle = RequestLedger.take(context, 'settle');
    if (!settle) return next.handle();
    return untilHandlerEnds(next, {
      done: (result, handOver) => {
        const raw = respondsLater(context, result)
          ? rawResponse(context.switchToHttp().getResponse())
          : undefined;
        if (raw) {
          handOver();
          whenAnswered(raw, (status) => void settle({ failed: status >= 400, result }));
          return EMPTY;
        }
        return defer(() => settle({ failed: statusOf(context) >= 400, result })).pipe(
          mergeMap((valid) =>
            valid
              ? EMPTY
              : throwError(() => forContext(context, new InternalServerErrorException())),
          ),
        );
      },
      // The handler's own error goes on; an invalid settle was logged.
      failed: (error) => settle({ failed: true, error }),
      // A subscriber that leaves early (an SSE client gone): the stream so far decides.
      left: (result) => void settle({ failed: statusOf(context) >= 400, result }),
    });
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
