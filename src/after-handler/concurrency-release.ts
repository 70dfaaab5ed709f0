import { ExecutionContext } from '@nestjs/common';
import { httpRequestOf } from '../context/http-context';

/** Gives back a request's concurrency slots; calling it again does nothing. */
export type SlotRelease = () => Promise<void>;

const pendingReleases = new WeakMap<object, SlotRelease>();

/**
 * The object that identifies one request from the guard to the interceptor: the HTTP
 * request, or else the argument array Nest builds for each RPC message or WebSocket event
 * and hands to both (its first element may be a primitive payload or a socket shared by
 * many events).
 */
export function carrierOf(context: ExecutionContext): object | undefined {
  const carrier = context.getType() === 'http' ? httpRequestOf(context) : context.getArgs();
  return typeof carrier === 'object' && carrier !== null ? carrier : undefined;
}

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
export function whenResponseEnds(response: any, then: () => void): void {
  const raw = rawResponse(response);
  if (!raw || raw.closed || raw.destroyed) then();
  else raw.once('close', then);
}

/**
 * Arranges for `release` to run exactly once when the request's work is over. The slot caps
 * server-side work, so a client that leaves does not end it:
 * - once the handler has started, the interceptor owns the release ({@link takeRelease}):
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
  const carrier = carrierOf(context);
  const raw = rawResponse(response);
  if (!carrier) return void raw?.once('close', () => void release());
  pendingReleases.set(carrier, release);
  raw?.once('close', () => {
    // Still pending: the handler never started.
    if (pendingReleases.get(carrier) !== release) return;
    pendingReleases.delete(carrier);
    void release();
  });
}

/** The release the guard registered for this request, if any; removed so it runs once. */
export function takeRelease(context: ExecutionContext): SlotRelease | undefined {
  const carrier = carrierOf(context);
  if (!carrier) return undefined;
  const release = pendingReleases.get(carrier);
  if (release) pendingReleases.delete(carrier);
  return release;
}
