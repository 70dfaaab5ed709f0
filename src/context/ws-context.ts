import { ExecutionContext } from '@nestjs/common';
import { RequestReadingOptions } from './request-reading.options';
import { defaultUser, EMPTY, GuardedRequest, ipv6SubnetOf, LazyFacts } from './http-context';

/**
 * The address of a WebSocket client: socket.io's handshake address, or the TCP peer of a
 * `ws` socket. Either is the connection's peer, so behind a proxy it is the proxy's
 * address; `resolveIp` can read a forwarded header (`client.handshake.headers`) instead.
 */
function peerAddress(client: any): unknown {
  return client?.handshake?.address ?? client?._socket?.remoteAddress;
}

/** The upgrade requests of `ws` sockets whose connection was limited, for their handshake. */
const upgradeRequests = new WeakMap<object, { headers?: object; url?: string }>();

/** Keeps a `ws` socket's upgrade request, which the socket itself does not (connection-limits.ts). */
export function recordUpgradeRequest(client: object, request: unknown): void {
  if (request && typeof request === 'object') upgradeRequests.set(client, request);
}

/** A client's handshake: socket.io keeps one; a `ws` socket's is its recorded upgrade request. */
function handshakeOf(client: any): { headers?: object; query?: object } | undefined {
  if (client?.handshake) return client.handshake;
  const request = client && typeof client === 'object' ? upgradeRequests.get(client) : undefined;
  if (!request) return undefined;
  const { searchParams } = new URL(request.url ?? '/', 'http://localhost');
  return { headers: request.headers, query: Object.fromEntries(searchParams) };
}

/**
 * A gateway message or connection: IP from the handshake, USER from the socket's `user`
 * (set by the app when it authenticates the connection; never from the message, which the
 * client writes), the handshake's headers and query, the message as `body` (a connection's
 * is socket.io's handshake `auth`).
 */
export function readWs(context: ExecutionContext, options: RequestReadingOptions): GuardedRequest {
  const ws = context.switchToWs();
  const client = ws.getClient();
  const data = ws.getData();
  const resolveUser = options.resolveUser ?? defaultUser;
  const facts = new LazyFacts(
    () => (options.resolveIp ? options.resolveIp(client) : peerAddress(client)),
    () => resolveUser(client),
    (ip) => ({
      params: EMPTY,
      query: handshakeOf(client)?.query ?? EMPTY,
      body: data ?? EMPTY,
      headers: handshakeOf(client)?.headers ?? EMPTY,
      user: client?.user,
      ip,
    }),
    ipv6SubnetOf(options),
  );
  return { facts, request: client };
}
