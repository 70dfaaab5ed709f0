import { ExecutionContext } from '@nestjs/common';
import { ipv4Bits, ipv6Bits } from '../keys/cidr';
import { RequestReadingOptions } from './request-reading.options';
import { readGraphql } from './graphql-context';
import {
  defaultUser,
  EMPTY,
  GuardedRequest,
  httpRequestOf,
  httpResponseOf,
  ipv6SubnetOf,
  LazyFacts,
  readHttp,
} from './http-context';
import { readWs } from './ws-context';

/**
 * Reads the request of any context type. HTTP (Express and Fastify) and GraphQL over HTTP
 * give the full key context; WebSocket the message as `body` (ws-context.ts); RPC the
 * message as `body`. Nothing here may throw on an unexpected shape.
 */
export function readRequest(
  context: ExecutionContext,
  options: RequestReadingOptions,
): GuardedRequest {
  const type = context.getType<string>();
  if (type === 'http') {
    return readHttp(httpRequestOf(context) ?? {}, httpResponseOf(context), options);
  }
  if (type === 'graphql') return readGraphql(context, options);
  if (type === 'ws') return readWs(context, options);
  const rpc = context.switchToRpc();
  const data = rpc.getData();
  const carrier = rpc.getContext();
  const resolveUser = options.resolveUser ?? defaultUser;
  const ipv6Subnet = ipv6SubnetOf(options);
  const facts = new LazyFacts(
    () => (options.resolveIp ? options.resolveIp(carrier) : rpcPeerAddress(context, carrier)),
    () => resolveUser(carrier) ?? resolveUser(data),
    (ip) => ({
      params: EMPTY,
      query: EMPTY,
      body: data ?? EMPTY,
      headers: EMPTY,
      user: carrier?.user,
      ip,
    }),
    ipv6Subnet,
  );
  return { facts, request: carrier };
}

/**
 * The caller's address: the TCP transport's socket, or a gRPC call's peer (its third
 * argument): `127.0.0.1:51234`, `::1:51234` (grpc-js), `ipv4:…` or `ipv6:[…]:…` (others).
 */
function rpcPeerAddress(context: ExecutionContext, carrier: any): unknown {
  const direct = carrier?.conn?.remoteAddress;
  if (direct !== undefined) return direct;
  const call = context.getArgByIndex(2);
  const peer: unknown = typeof call?.getPeer === 'function' ? call.getPeer() : undefined;
  if (typeof peer !== 'string') return undefined;
  const unprefixed = peer.replace(/^ipv[46]:/, '');
  const bracketed = /^\[([^\]]+)\]/.exec(unprefixed)?.[1];
  const host = bracketed ?? unprefixed.replace(/:\d+$/, '');
  return ipv4Bits(host) !== undefined || ipv6Bits(host) !== undefined ? host : undefined;
}
