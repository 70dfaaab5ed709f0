import { ExecutionContext, HttpException } from '@nestjs/common';
import { optionalExport } from '../optional-package';
import { toGraphQLError } from './graphql-context';
import { answerInTurn, wsRefusalBody } from './ws-context';

type ExceptionClass = new (error: string | object) => Error;

let wsException: ExceptionClass | undefined | null = null;

/**
 * An answer a step of the guard gives (a refusal, a 400 for a key, a 503): the HTTP
 * exception, with a denial's retry time. The guard's steps throw it as is, knowing nothing
 * of transports; `answeredFor` throws it once, as the request's transport carries it.
 */
export class GuardAnswer extends Error {
  constructor(
    readonly exception: HttpException,
    readonly retryAfterMs?: number,
  ) {
    super(exception.message);
  }
}

/**
 * Runs the guard's steps for one request; a GuardAnswer one of them throws is thrown in the
 * form of the request's transport (forContext), and on a gateway message told to its client
 * in turn first (ws-context.ts's answerInTurn). Anything else goes on as it came.
 */
export async function answeredFor<T>(
  context: ExecutionContext,
  steps: () => Promise<T>,
): Promise<T> {
  try {
    return await steps();
  } catch (error) {
    const answer =
      error instanceof GuardAnswer
        ? forContext(context, error.exception, error.retryAfterMs)
        : error;
    if (context.getType() === 'ws') await answerInTurn(context, answer);
    throw answer;
  }
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
    // Sent to the client by the guard, in turn (ws-context.ts's answerInTurn).
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
