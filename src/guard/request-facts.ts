import { ExecutionContext } from '@nestjs/common';
import { normalizeIp } from '../keys/key-builder';
import { RateLimiterModuleOptions } from '../rate-limiter.options';
import { RequestFacts } from './compiled-limit';

const EMPTY = Object.freeze({});

/** The request, the response (HTTP only) and what keys may depend on. */
export interface GuardedRequest {
  facts: RequestFacts;
  /** Express response or Fastify reply; absent outside HTTP. */
  response?: any;
}

function defaultUser(request: any): string | number | undefined {
  const user = request?.user;
  return user?.id ?? user?.sub ?? undefined;
}

/**
 * Reads the request of any context type. HTTP (Express and Fastify) gives the full key
 * context; RPC gives the message as `body`; WebSocket the message as `body` and the
 * socket's address as `ip`. Nothing here may throw on an unexpected shape.
 */
export function readRequest(
  context: ExecutionContext,
  options: RateLimiterModuleOptions,
): GuardedRequest {
  const resolveUser = options.resolveUser ?? defaultUser;
  const type = context.getType<string>();
  if (type === 'http') {
    const http = context.switchToHttp();
    const request = http.getRequest() ?? {};
    const ip = normalizeIp(
      String((options.resolveIp ? options.resolveIp(request) : request.ip) ?? ''),
    );
    const userId = resolveUser(request);
    return {
      response: http.getResponse(),
      facts: {
        ip,
        userId,
        keyContext: {
          params: request.params ?? EMPTY,
          query: request.query ?? EMPTY,
          body: request.body ?? EMPTY,
          headers: request.headers ?? EMPTY,
          user: request.user,
          ip,
          method: request.method,
          path:
            typeof request.path === 'string'
              ? request.path
              : String(request.url ?? '').split('?')[0],
        },
      },
    };
  }
  const data = type === 'ws' ? context.switchToWs().getData() : context.switchToRpc().getData();
  const carrier =
    type === 'ws' ? context.switchToWs().getClient() : context.switchToRpc().getContext();
  const rawIp = options.resolveIp
    ? options.resolveIp(carrier)
    : (carrier?.handshake?.address ??
      carrier?._socket?.remoteAddress ??
      carrier?.conn?.remoteAddress ??
      '');
  const ip = normalizeIp(String(rawIp ?? ''));
  const userId = resolveUser(carrier) ?? resolveUser(data);
  return {
    facts: {
      ip,
      userId,
      keyContext: {
        params: EMPTY,
        query: EMPTY,
        body: data ?? EMPTY,
        headers: EMPTY,
        user: carrier?.user,
        ip,
      },
    },
  };
}
