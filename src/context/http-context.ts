import { ExecutionContext, Logger } from '@nestjs/common';
import { DEFAULT_IPV6_SUBNET, ipForKey } from '../keys/ip-subnet';
import { normalizeClientIp } from '../keys/client-ip';
import { RequestFacts } from '../keys/compile-key';
import { KeyContext } from '../keys/key-template.evaluator';
import { toUserId } from '../keys/user-id';
import { RequestReadingOptions } from './request-reading.options';
import { limiterMessages } from '../rate-limiter.messages';

export const EMPTY = Object.freeze({});

/** The request's facts, and what a denial may write to. */
export interface GuardedRequest {
  facts: RequestFacts;
  /** The HTTP request (behind GraphQL too), the WebSocket client, or the RPC context. */
  request: any;
  /** Express response or Fastify reply; absent outside HTTP (and GraphQL over HTTP). */
  response?: any;
}

/**
 * The authenticated user: `request.user`, or on Fastify `request.raw.user`, where Nest
 * middleware (which receives the raw Node request there) puts it.
 */
function userOf(request: any): any {
  return request?.user ?? request?.raw?.user;
}

/** Whether the request has a user yet (one `resolveUser` finds, or `user` for templates). */
export function hasUser(read: GuardedRequest): boolean {
  if (userOf(read.request) !== undefined) return true;
  try {
    return read.facts.userId !== undefined;
  } catch {
    return true; // an id `resolveUser` got wrong: decided now, answered 500 like before
  }
}

export function defaultUser(request: any): unknown {
  const user = userOf(request);
  return user?.id ?? user?.sub ?? undefined;
}

/**
 * What keys may depend on, read only when a key asks: a METHOD limit reads nothing, an IP
 * limit only the address. Reading is not free (Express parses the query string and runs
 * the trust-proxy rules on every access). Each kind of request says how it reads them.
 */
abstract class OnDemandFacts implements RequestFacts {
  private ipValue?: string;
  private keyIpValue?: string;
  private userRead = false;
  private userValue?: string | number;
  private userError?: Error;
  private contextValue?: KeyContext;

  constructor(private readonly ipv6Subnet: number | false) {}

  protected abstract readIp(): unknown;
  protected abstract readUser(): unknown;
  protected abstract readContext(ip: string): KeyContext;

  get ip(): string {
    return (this.ipValue ??= normalizeClientIp(String(this.readIp() ?? '')));
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

/** The facts of a request read by the functions it is given (WebSocket, RPC, GraphQL). */
export class LazyFacts extends OnDemandFacts {
  constructor(
    private readonly ipReader: () => unknown,
    private readonly userReader: () => unknown,
    private readonly contextReader: (ip: string) => KeyContext,
    ipv6Subnet: number | false,
  ) {
    super(ipv6Subnet);
  }

  protected readIp(): unknown {
    return this.ipReader();
  }

  protected readUser(): unknown {
    return this.userReader();
  }

  protected readContext(ip: string): KeyContext {
    return this.contextReader(ip);
  }
}

/**
 * The facts of an HTTP request (Express or Fastify): the full key context. Its own class,
 * not readers given as functions: it is made on every request, and three closures each time
 * were most of what reading a request cost when no key asked for anything.
 */
class HttpFacts extends OnDemandFacts {
  constructor(
    private readonly request: any,
    private readonly options: RequestReadingOptions,
  ) {
    super(ipv6SubnetOf(options));
  }

  protected readIp(): unknown {
    const { resolveIp } = this.options;
    return resolveIp ? resolveIp(this.request) : proxiedIp(this.request, this.options);
  }

  protected readUser(): unknown {
    return (this.options.resolveUser ?? defaultUser)(this.request);
  }

  protected readContext(ip: string): KeyContext {
    const { request } = this;
    return {
      params: request.params ?? EMPTY,
      query: request.query ?? EMPTY,
      body: request.body ?? EMPTY,
      headers: request.headers ?? EMPTY,
      user: userOf(request),
      ip,
      method: request.method,
      path:
        typeof request.path === 'string' ? request.path : String(request.url ?? '').split('?')[0],
    };
  }
}

export function ipv6SubnetOf(options: RequestReadingOptions): number | false {
  return options.ipv6Subnet ?? DEFAULT_IPV6_SUBNET;
}

/** `req.ip`, after a look at whether a proxy in front goes unnoticed (warnIfProxyUntrusted, below). */
function proxiedIp(request: any, options: RequestReadingOptions): unknown {
  const ip = request.ip;
  warnIfProxyUntrusted(request, String(ip ?? ''), options);
  return ip;
}

/** The facts of an HTTP request (Express or Fastify): the full key context. */
export function readHttp(
  request: any,
  response: any,
  options: RequestReadingOptions,
): GuardedRequest {
  return { facts: new HttpFacts(request, options), request, response };
}

/**
 * What `switchToHttp().getRequest()` returns, the first argument: without it, which assigns
 * three new closures onto the context on every call.
 */
export function httpRequestOf(context: ExecutionContext): any {
  return context.getArgByIndex(0);
}

/** What `switchToHttp().getResponse()` returns, the second argument (see httpRequestOf). */
export function httpResponseOf(context: ExecutionContext): any {
  return context.getArgByIndex(1);
}

/** The options of the apps that were told: once per app, not per request. */
const told = new WeakSet<object>();

/**
 * Whether the app trusts proxies to name the client: Express's `trust proxy` setting;
 * Fastify's `trustProxy`, without which its requests have no `ips`. Undefined for a request
 * of neither.
 */
function trustsProxies(request: any): boolean | undefined {
  if (typeof request?.app?.get === 'function') return Boolean(request.app.get('trust proxy'));
  if (request?.raw !== undefined) return request.ips !== undefined;
  return undefined;
}

/**
 * A request that came through a proxy (it carries X-Forwarded-For) to an app that trusts no
 * proxy is keyed by the proxy's address: every client behind it shares one IP limit. Said
 * once per app (`appOptions`, the module's options, stands for the app), with the fix.
 */
function warnIfProxyUntrusted(request: any, ip: string, appOptions: object): void {
  if (told.has(appOptions) || request?.headers?.['x-forwarded-for'] === undefined) return;
  if (trustsProxies(request) !== false) return;
  told.add(appOptions);
  new Logger('RateLimiter').warn(limiterMessages.untrustedProxy(ip));
}
