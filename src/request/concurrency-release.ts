import { ExecutionContext } from '@nestjs/common';
import { RequestLedger, SlotRelease } from './request-ledger';

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
