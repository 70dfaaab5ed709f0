import { CallHandler, ExecutionContext, StreamableFile } from '@nestjs/common';
import {
  Observable,
  ObservableInput,
  catchError,
  concatWith,
  defer,
  finalize,
  ignoreElements,
  tap,
  throwError,
} from 'rxjs';
import { RESPONSE_PASSTHROUGH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';

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

/**
 * Whether the response goes on after the handler returned `last`: a `StreamableFile`, or a
 * handler that took the response with `@Res()`.
 */
export function respondsLater(context: ExecutionContext, last: unknown): boolean {
  return (
    context.getType() === 'http' && (last instanceof StreamableFile || managesResponse(context))
  );
}

/** What an interceptor does when the handler's work is over, however it ends. */
interface HandlerEnd {
  /**
   * After its last value (all of them, for an observable stream), before Nest writes the
   * response: what to wait for. `handOver` says the work goes on with the response instead
   * (respondsLater), so `left` does not run.
   */
  done(last: unknown, handOver: () => void): ObservableInput<unknown>;
  /** The handler failed: what to wait for before its error goes on. */
  failed(error: unknown): ObservableInput<unknown>;
  /** The subscriber left early (an SSE client gone), or the work ended without `handOver`. */
  left(last: unknown): void;
}

/** The handler's values, with `end` run once its work is over (the slot and settle interceptors). */
export function untilHandlerEnds(next: CallHandler, end: HandlerEnd): Observable<unknown> {
  let last: unknown;
  let handedOver = false;
  const handOver = () => (handedOver = true);
  return next.handle().pipe(
    tap((value) => (last = value)),
    concatWith(defer(() => end.done(last, handOver)).pipe(ignoreElements())),
    catchError((error: unknown) =>
      defer(() => end.failed(error)).pipe(concatWith(throwError(() => error)), ignoreElements()),
    ),
    finalize(() => {
      if (!handedOver) end.left(last);
    }),
  );
}
