import { ExecutionContext, HttpException } from '@nestjs/common';
import { optionalPackage } from '../optional-package';
import { toGraphQLError } from './graphql-context';
import { sendToWsClient } from './ws-context';

type ExceptionClass = new (error: string | object) => Error;

/** Loads an optional Nest package's exception class; absent packages are simply not used. */
function optionalException(packageName: string, exportName: string): ExceptionClass | undefined {
  return optionalPackage<Record<string, ExceptionClass>>(packageName)?.[exportName];
}

let rpcException: ExceptionClass | undefined | null = null;
let wsException: ExceptionClass | undefined | null = null;

/**
 * The error to throw for a context type. Nest's RPC and WebSocket exception filters turn
 * anything but their own exceptions into "Internal server error", so there the HTTP
 * exception's body travels inside an RpcException or WsException. A GraphQL resolver gets
 * a GraphQL error whose `extensions` hold the body.
 */
export function forContext(context: ExecutionContext, exception: HttpException): Error {
  const type = context.getType<string>();
  if (type === 'rpc') {
    if (rpcException === null)
      rpcException = optionalException('@nestjs/microservices', 'RpcException');
    if (rpcException) return new rpcException(exception.getResponse());
  }
  if (type === 'graphql') return toGraphQLError(exception);
  if (type === 'ws') {
    sendToWsClient(context, exception.getResponse());
    if (wsException === null) wsException = optionalException('@nestjs/websockets', 'WsException');
    if (wsException) return new wsException(exception.getResponse());
  }
  return exception;
}
