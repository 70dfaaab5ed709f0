import { rawResponse } from './concurrency-release';

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
