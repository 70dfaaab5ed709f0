import { ExecutionContext, HttpException } from '@nestjs/common';
import { GuardAnswer } from '../errors/guard-answer';
import { optionalExport } from '../optional-package';
import { toGraphQLError } from './graphql-context';
import { nestFilterSendsToWs } from './nest-ws-filter';

type ExceptionClass = new (error: string | object) => Error;

let wsException: ExceptionClass | undefined | null = null;

/**
 * What the guard throws for an error one of its steps threw: a GuardAnswer in the form of
 * the request's transport (forContext), on a gateway message told to its client in turn
 * first (answerInTurn, below); anything else as it came.
 */
export async function answerFor(context: ExecutionContext, error: unknown): Promise<unknown> {
  const answer =
    error instanceof GuardAnswer ? forContext(context, error.exception, error.retryAfterMs) : error;
  if (context.getType() === 'ws') await answerInTurn(context, answer);
  return answer;
}

/**
 * The error to throw for a context type. Nest's RPC and WebSocket exception filters turn
 * anything but their own exceptions into "Internal server error", so there the HTTP
 * exception's body travels inside an RpcException (forRpc, below) or WsException. A
 * GraphQL resolver gets a GraphQL error whose `extensions` hold the body. `retryAfterMs`,
 * a denial's, goes to RPC clients, which have no `Retry-After` header.
 */
export function forContext(
  context: ExecutionContext,
  exception: HttpException,
  retryAfterMs?: number,
): Error {
  const type = context.getType<string>();
  if (type === 'rpc') return forRpc(context, exception, retryAfterMs);
  if (type === 'graphql') return toGraphQLError(exception);
  if (type === 'ws') {
    // Sent to the client by the guard, in turn (answerInTurn, below).
    const body = wsRefusalBody(context, exception.getResponse());
    if (wsException === null) wsException = optionalExport('@nestjs/websockets', 'WsException');
    if (wsException) return new wsException(body);
  }
  return exception;
}

/** gRPC status codes (grpc/doc/statuscodes.md) for the HTTP statuses the guard answers. */
const GRPC_STATUS: Record<number, number> = {
  400: 3, // INVALID_ARGUMENT
  403: 7, // PERMISSION_DENIED
  429: 8, // RESOURCE_EXHAUSTED
  499: 1, // CANCELLED
  500: 13, // INTERNAL
  503: 14, // UNAVAILABLE
};
const GRPC_UNKNOWN = 2;

/** The trailer that carries a denial's retry delay, in whole milliseconds. */
const RETRY_AFTER_MS_METADATA = 'retry-after-ms';

interface GrpcMetadata {
  set(key: string, value: string): void;
  getMap(): unknown;
}

let rpcException: ExceptionClass | undefined | null = null;

/**
 * A gRPC call's metadata (the context Nest gives a `@GrpcMethod`): told apart from the other
 * transports' contexts by shape, so `@grpc/grpc-js` is never imported.
 */
function grpcMetadataOf(context: ExecutionContext): GrpcMetadata | undefined {
  const carrier = context.switchToRpc().getContext();
  const isMetadata =
    carrier !== null &&
    typeof carrier === 'object' &&
    typeof carrier.getMap === 'function' &&
    typeof carrier.set === 'function' &&
    typeof carrier.clone === 'function';
  return isMetadata ? carrier : undefined;
}

/**
 * The error an RPC handler's client sees. Nest's RPC exception filter answers anything but
 * an RpcException with "Internal server error", so the HTTP exception's body travels in one,
 * with `retryAfterMs` on a denial. On gRPC the error is a status (`code`, `details`,
 * trailing `metadata`), which grpc-js sends as is: a 429 is RESOURCE_EXHAUSTED with the
 * delay in `retry-after-ms`, where an error without a code would reach the client as UNKNOWN.
 */
function forRpc(context: ExecutionContext, exception: HttpException, retryAfterMs?: number): Error {
  if (rpcException === null) rpcException = optionalExport('@nestjs/microservices', 'RpcException');
  if (!rpcException) return exception;
  const response = exception.getResponse();
  const body: Record<string, unknown> =
    typeof response === 'object' ? { ...response } : { message: response };
  if (retryAfterMs !== undefined) body.retryAfterMs = Math.ceil(retryAfterMs);
  const incoming = grpcMetadataOf(context);
  if (!incoming) return new rpcException(body);
  // A Metadata of the server's own grpc-js copy: the one it accepts as trailers.
  const metadata = new (incoming.constructor as new () => GrpcMetadata)();
  if (retryAfterMs !== undefined && retryAfterMs >= 0) {
    metadata.set(RETRY_AFTER_MS_METADATA, String(Math.ceil(retryAfterMs)));
  }
  const message = String(body.message ?? exception.message);
  return new rpcException({
    code: GRPC_STATUS[exception.getStatus()] ?? GRPC_UNKNOWN,
    message,
    details: message,
    metadata,
  });
}

/** A `ws` socket's readyState when it can send. */
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
function wsRefusalBody(context: ExecutionContext, body: string | object): string | object {
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
async function answerInTurn(context: ExecutionContext, refusal: unknown): Promise<void> {
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
