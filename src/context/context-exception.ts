import { ExecutionContext, HttpException } from '@nestjs/common';
import { optionalExport } from '../optional-package';
import { toGraphQLError } from './graphql-context';
import { wsRefusalBody } from './ws-context';
import { forRpc } from './rpc-exception';

type ExceptionClass = new (error: string | object) => Error;

let wsException: ExceptionClass | undefined | null = null;

/**
 * The error to throw for a context type. Nest's RPC and WebSocket exception filters turn
 * anything but their own exceptions into "Internal server error", so there the HTTP
 * exception's body travels inside an RpcException (rpc-exception.ts) or WsException. A
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
