import {
  CallHandler,
  ExecutionContext,
  Injectable,
  NestInterceptor,
  StreamableFile,
} from '@nestjs/common';
import { RESPONSE_PASSTHROUGH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import {
  EMPTY,
  Observable,
  catchError,
  concatWith,
  defer,
  finalize,
  ignoreElements,
  tap,
  throwError,
} from 'rxjs';
import { takeRelease, whenResponseEnds } from './concurrency-release';

/**
 * Gives back `@ConcurrencyLimit` slots when the handler's work is over: after its last value
 * (all of them, for an observable stream) and before Nest writes the response, or when it
 * fails, or when the subscriber leaves early (an SSE client that left). A response that goes
 * on after the handler returns (a `StreamableFile`, or a handler that took the response with
 * `@Res()`) holds the slot until that response ends. `@ConcurrencyLimit` attaches it to its
 * handler or class.
 */
@Injectable()
export class ConcurrencyReleaseInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const release = takeRelease(context);
    if (!release) return next.handle();
    let last: unknown;
    let handedOver = false;
    const afterResult = defer(() => {
      if (
        context.getType() === 'http' &&
        (last instanceof StreamableFile || managesResponse(context))
      ) {
        handedOver = true;
        whenResponseEnds(context.switchToHttp().getResponse(), () => void release());
        return EMPTY;
      }
      return release();
    });
    return next.handle().pipe(
      tap((value) => (last = value)),
      concatWith(afterResult.pipe(ignoreElements())),
      catchError((error: unknown) =>
        defer(release).pipe(concatWith(throwError(() => error)), ignoreElements()),
      ),
      finalize(() => {
        if (!handedOver) void release();
      }),
    );
  }
}

const responseHandling = new WeakMap<Function, Map<string, boolean>>();

/**
 * Whether the handler writes the response itself (`@Res()` or `@Next()` without
 * `passthrough`), as Nest decides it: then the response may go on after the handler
 * returns. Read once per handler.
 */
function managesResponse(context: ExecutionContext): boolean {
  const controller = context.getClass();
  const method = context.getHandler().name;
  let byMethod = responseHandling.get(controller);
  if (!byMethod) responseHandling.set(controller, (byMethod = new Map()));
  let manages = byMethod.get(method);
  if (manages === undefined) {
    const args: Record<string, { index: number }> =
      Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, method) ?? {};
    const takesResponse = Object.keys(args).some((name) => {
      const type = Number(name.split(':')[0]);
      return type === RouteParamtypes.RESPONSE || type === RouteParamtypes.NEXT;
    });
    manages =
      takesResponse && !Reflect.getMetadata(RESPONSE_PASSTHROUGH_METADATA, controller, method);
    byMethod.set(method, manages);
  }
  return manages;
}
