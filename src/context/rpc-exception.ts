import { ExecutionContext, HttpException } from '@nestjs/common';
import { optionalExport } from '../optional-package';

type ExceptionClass = new (error: string | object) => Error;

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
export function forRpc(
  context: ExecutionContext,
  exception: HttpException,
  retryAfterMs?: number,
): Error {
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
