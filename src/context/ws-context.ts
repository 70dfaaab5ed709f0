import { ExecutionContext } from '@nestjs/common';
import { RequestReadingOptions } from './request-reading.options';
import { defaultUser, EMPTY, GuardedRequest, ipv6SubnetOf, LazyFacts } from './http-context';
import { nestFilterSendsToWs } from './nest-ws-filter';

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

const OPEN = 1;

/**
 * The event a gateway message came as: Nest puts it last in the handler's arguments,
 * after the client, the data and (socket.io) the acknowledgement. A connection's arguments
 * (connection-limits.ts) are the client and its handshake data alone: no event.
 */
function eventOf(context: ExecutionContext): string | undefined {
  const args = context.getArgs();
  const last: unknown = args[args.length - 1];
  return args.length > 2 && typeof last === 'string' ? last : undefined;
}

/** The socket.io acknowledgement the client asked for with its message, if it did. */
function acknowledgementOf(context: ExecutionContext): ((answer: unknown) => void) | undefined {
  const args = context.getArgs();
  const ack: unknown = args.length > 3 ? args[2] : undefined;
  return typeof ack === 'function' ? (ack as (answer: unknown) => void) : undefined;
}

/** A refusal's body on a gateway message: it names the event refused, so the client knows which. */
export function wsRefusalBody(context: ExecutionContext, body: string | object): string | object {
  const event = eventOf(context);
  return event !== undefined && typeof body === 'object' ? { ...body, event } : body;
}

/**
 * Tells a gateway message's client that it was refused, in turn: after the answers of the
 * socket's earlier messages. Those are on their way through Nest's handler pipeline (pipes,
 * interceptors, the handler, the adapter's send), which takes more steps than a refusal, so
 * a refusal sent at once would pass them (seven denials before the three replies they
 * followed). Their decisions arrived first, so after the turn of the event loop their
 * answers are out; and refusals stay in the order they were decided. The caller rethrows
 * the refusal after this, for Nest's filter.
 */
export async function answerInTurn(context: ExecutionContext, refusal: unknown): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  const body = (refusal as { getError?: () => unknown } | undefined)?.getError?.();
  if (body !== undefined) sendToWsClient(context, body);
}

/**
 * Tells the client of a refusal where Nest's WebSocket exception filter cannot: the filter
 * calls `client.emit('exception', ...)`, which on socket.io sends it but on a `ws` socket
 * (platform-ws) only fires a local event, so a `ws` client is sent
 * `{ event: 'exception', data }` here. A socket.io client that asked for an acknowledgement
 * gets the body as its answer (else it would wait for one forever); the filter sends it the
 * `exception` event as well.
 */
function sendToWsClient(context: ExecutionContext, body: unknown): void {
  const client = context.switchToWs().getClient();
  if (!client) return;
  if (client.handshake !== undefined) return void acknowledgementOf(context)?.(body);
  if (typeof client.send !== 'function' || client.readyState !== OPEN) return;
  try {
    // From NestJS 12 Nest's filter sends it to a `ws` socket too: the client reads it once.
    if (!nestFilterSendsToWs()) client.send(JSON.stringify({ event: 'exception', data: body }));
  } catch {
    // The socket closed in between: nobody to tell.
  }
}
