import { ExecutionContext } from '@nestjs/common';

/** Gives back a request's concurrency slots; calling it again does nothing. */
export type SlotRelease = () => Promise<void>;

const pendingReleases = new WeakMap<object, SlotRelease>();

/**
 * The object that identifies one request from the guard to the interceptor: the HTTP
 * request, or else the argument array Nest builds for each RPC message or WebSocket event
 * and hands to both (its first element may be a primitive payload or a socket shared by
 * many events).
 */
function carrierOf(context: ExecutionContext): object | undefined {
  const carrier =
    context.getType() === 'http' ? context.switchToHttp().getRequest() : context.getArgs();
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

/**
 * Arranges for `release` to run exactly once when the request is over:
 * - when the handler's result completes or fails (the interceptor, before the response is
 *   written, so a client's next request finds the slot free; a stream, such as
 *   server-sent events, holds its slot until it ends);
 * - when the response closes, which also covers a client that disconnects mid-request;
 * - otherwise the slot's lease frees it.
 */
export function holdUntilDone(
  context: ExecutionContext,
  response: any,
  release: SlotRelease,
): void {
  const carrier = carrierOf(context);
  if (carrier) pendingReleases.set(carrier, release);
  const raw = response?.raw ?? response;
  if (raw && typeof raw.once === 'function') raw.once('close', () => void release());
}

/** The release the guard registered for this request, if any; removed so it runs once. */
export function takeRelease(context: ExecutionContext): SlotRelease | undefined {
  const carrier = carrierOf(context);
  if (!carrier) return undefined;
  const release = pendingReleases.get(carrier);
  if (release) pendingReleases.delete(carrier);
  return release;
}
