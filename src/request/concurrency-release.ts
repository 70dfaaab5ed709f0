import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { EMPTY, Observable } from 'rxjs';
import { RequestLedger, SlotRelease } from './request-ledger';
import { respondsLater, untilHandlerEnds } from './managed-response';

export function once(release: () => Promise<unknown>): SlotRelease {
  let released: Promise<void> | undefined;
  return () =>
    (released ??= release().then(
      () => undefined,
      () => undefined,
    ));
}

/** Node's response under an Express response or a Fastify reply; absent outside HTTP. */
export function rawResponse(response: any): any {
  const raw = response?.raw ?? response;
  return raw && typeof raw.once === 'function' ? raw : undefined;
}

/**
 * Runs `then` once the response is over: sent in full, or its connection closed (a client
 * that left). Node emits `close` in both cases; a response already over runs it at once.
 */
function whenResponseEnds(response: any, then: () => void): void {
  const raw = rawResponse(response);
  if (!raw || raw.closed || raw.destroyed) then();
  else raw.once('close', then);
}

/**
 * Arranges for `release` to run exactly once when the request's work is over. The slot caps
 * server-side work, so a client that leaves does not end it:
 * - once the handler has started, the interceptor owns the release (it takes it from the
 *   request's ledger):
 *   when the handler settles, or, for a streamed response, when the response ends;
 * - before that (the guard is still waiting, or another guard, a pipe or an exception filter
 *   answered instead), it runs when the response closes, a client that left included;
 * - otherwise the slot's lease frees it.
 */
export function holdUntilDone(
  context: ExecutionContext,
  response: any,
  release: SlotRelease,
): void {
  const ledger = RequestLedger.of(context);
  const raw = rawResponse(response);
  if (!ledger) return void raw?.once('close', () => void release());
  // Held with what the request holds already (its overload slot, its concurrency slots):
  // one release gives back all of it.
  const previous = ledger.take('release');
  const all = previous ? once(() => Promise.all([previous(), release()])) : release;
  ledger.leave('release', all);
  raw?.once('close', () => {
    // Still pending: the handler never started.
    if (!ledger.holds('release', all)) return;
    ledger.take('release');
    void all();
  });
}

/** Whether the client of an HTTP response is already gone: its connection closed unanswered. */
function isGone(raw: any): boolean {
  return raw.closed === true || raw.destroyed === true;
}

/**
 * Waits for `wait` (a request's reserved permits), unless its client leaves first (the
 * response closes before anything was written: Express's `res` or Fastify's `reply.raw`).
 * Resolves true when the wait ran its course, false as soon as the client is gone, so the
 * caller gives the reservation back at once instead of spending it on nobody. Outside HTTP
 * it just waits.
 */
export function waitWhileConnected(wait: Promise<void>, response: unknown): Promise<boolean> {
  const raw = rawResponse(response);
  if (!raw) return wait.then(() => true);
  if (isGone(raw)) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onClose = () => resolve(false);
    raw.once('close', onClose);
    void wait.then(() => {
      raw.off('close', onClose);
      resolve(true);
    });
  });
}

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
