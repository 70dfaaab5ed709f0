import type { HttpAdapterHost } from '@nestjs/core';

/** What `whenServing` needs of the app's HTTP server (Node's `http.Server`, Express or Fastify's). */
interface ListeningServer {
  listening?: boolean;
  once?(event: 'listening', listener: () => void): unknown;
}

/**
 * Runs `work` once the app serves: when its HTTP server starts listening, or at once for an
 * app without one (an application context, a microservice) or one already listening.
 * Whatever opens a Redis connection at start-up waits for this: an app that starts and then
 * cannot listen (its port is in use) has opened no socket, so its process can still exit.
 */
export function whenServing(host: HttpAdapterHost | undefined, work: () => void): void {
  const server = host?.httpAdapter?.getHttpServer() as ListeningServer | undefined;
  if (!server || typeof server.once !== 'function' || server.listening) return work();
  server.once('listening', work);
}
