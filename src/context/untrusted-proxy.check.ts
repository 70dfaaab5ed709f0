import { Logger } from '@nestjs/common';
import { limiterMessages } from '../rate-limiter.messages';

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
export function warnIfProxyUntrusted(request: any, ip: string, appOptions: object): void {
  if (told.has(appOptions) || request?.headers?.['x-forwarded-for'] === undefined) return;
  if (trustsProxies(request) !== false) return;
  told.add(appOptions);
  new Logger('RateLimiter').warn(limiterMessages.untrustedProxy(ip));
}
