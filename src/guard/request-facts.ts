import { ExecutionContext } from '@nestjs/common';
import { DEFAULT_IPV6_SUBNET, ipForKey } from '../keys/ip-subnet';
import { normalizeIp } from '../keys/key-builder';
import { KeyContext } from '../keys/key-template.evaluator';
import { toUserId } from '../keys/user-id';
import { RateLimiterModuleOptions } from '../rate-limiter.options';
import { RequestFacts } from './compiled-limit';

const EMPTY = Object.freeze({});

/** The request's facts (HTTP only: the response too). */
export interface GuardedRequest {
  facts: RequestFacts;
  /** Express response or Fastify reply; absent outside HTTP. */
  response?: any;
}

/**
 * The authenticated user: `request.user`, or on Fastify `request.raw.user`, where Nest
 * middleware (which receives the raw Node request there) puts it.
 */
function userOf(request: any): any {
  return request?.user ?? request?.raw?.user;
}

function defaultUser(request: any): unknown {
  const user = userOf(request);
  return user?.id ?? user?.sub ?? undefined;
}

/**
 * What keys may depend on, read only when a key asks: a METHOD limit reads nothing, an IP
 * limit only the address. Reading is not free (Express parses the query string and runs
 * the trust-proxy rules on every access).
 */
class LazyFacts implements RequestFacts {
  private ipValue?: string;
  private keyIpValue?: string;
  private userRead = false;
  private userValue?: string | number;
  private userError?: Error;
  private contextValue?: KeyContext;

  constructor(
    private readonly readIp: () => unknown,
    private readonly readUser: () => unknown,
    private readonly readContext: (ip: string) => KeyContext,
    private readonly ipv6Subnet: number | false,
  ) {}

  get ip(): string {
    return (this.ipValue ??= normalizeIp(String(this.readIp() ?? '')));
  }

  get keyIp(): string {
    return (this.keyIpValue ??= ipForKey(this.ip, this.ipv6Subnet));
  }

  /** @throws UserIdInvalidError when `resolveUser` gave something that is not an id. */
  get userId(): string | number | undefined {
    if (!this.userRead) {
      this.userRead = true;
      try {
        this.userValue = toUserId(this.readUser());
      } catch (error) {
        this.userError = error as Error;
      }
    }
    if (this.userError) throw this.userError;
    return this.userValue;
  }

  get keyContext(): KeyContext {
    return (this.contextValue ??= this.readContext(this.ip));
  }
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
  const ipv6Subnet = options.ipv6Subnet ?? DEFAULT_IPV6_SUBNET;
  const type = context.getType<string>();
  if (type === 'http') {
    const http = context.switchToHttp();
    const request = http.getRequest() ?? {};
    const facts = new LazyFacts(
      () => (options.resolveIp ? options.resolveIp(request) : request.ip),
      () => resolveUser(request),
      (ip) => ({
        params: request.params ?? EMPTY,
        query: request.query ?? EMPTY,
        body: request.body ?? EMPTY,
        headers: request.headers ?? EMPTY,
        user: userOf(request),
        ip,
        method: request.method,
        path:
          typeof request.path === 'string' ? request.path : String(request.url ?? '').split('?')[0],
      }),
      ipv6Subnet,
    );
    return { response: http.getResponse(), facts };
  }
  const data = type === 'ws' ? context.switchToWs().getData() : context.switchToRpc().getData();
  const carrier =
    type === 'ws' ? context.switchToWs().getClient() : context.switchToRpc().getContext();
  const facts = new LazyFacts(
    () =>
      options.resolveIp
        ? options.resolveIp(carrier)
        : (carrier?.handshake?.address ??
          carrier?._socket?.remoteAddress ??
          carrier?.conn?.remoteAddress),
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
  return { facts };
}
