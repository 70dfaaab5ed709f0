import type { HttpAdapterHost } from '@nestjs/core';

/** What `whenServing` needs of the app's HTTP server (Node's `http.Server`, Express or Fastify's). */
interface ListeningServer {
  listening?: boolean;
  once?(event: 'listening' | 'error', listener: () => void): unknown;
  removeListener?(event: 'listening' | 'error', listener: () => void): unknown;
}

/**
 * How long an app with an HTTP server may go without listening before the work runs anyway:
 * an app that only calls `app.init()` (serverless adapters, Fastify's `inject()`, a hybrid
 * app serving microservices only) never listens, and still needs its start-up work. A port
 * in use fails `listen` well within it.
 */
const SERVE_GRACE_MS = 1_000;

/**
 * Runs `work` once the app serves: when its HTTP server starts listening, at once for an app
 * without one (an application context, a microservice) or one already listening, and after
 * {@link SERVE_GRACE_MS} for one that never listens. Whatever opens a Redis connection at
 * start-up waits for this: an app whose `listen` fails (its port is in use) has opened no
 * socket, so its process can still exit. Returns what cancels the work (at shutdown).
 */
export function whenServing(
  host: HttpAdapterHost | undefined,
  work: () => void,
  graceMs = SERVE_GRACE_MS,
): () => void {
  const server = host?.httpAdapter?.getHttpServer() as ListeningServer | undefined;
  if (!server || typeof server.once !== 'function' || server.listening) {
    work();
    return () => undefined;
  }
  let settled = false;
  const settle = (): boolean => {
    if (settled) return false;
    settled = true;
    clearTimeout(timer);
    server.removeListener?.('listening', run);
    return true;
  };
  const run = () => {
    if (settle()) work();
  };
  // The app's own `listen` reports the error; the work then waits for a listen that succeeds.
  const failed = () => clearTimeout(timer);
  // Unref'd: a process with nothing else to do exits without waiting for it.
  const timer = setTimeout(run, graceMs);
  timer.unref();
  server.once('listening', run);
  server.once('error', failed);
  return () => void settle();
}
