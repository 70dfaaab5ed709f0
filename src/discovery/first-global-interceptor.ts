import type { ApplicationConfig } from '@nestjs/core';
import { isRateLimitInterceptor, RateLimitInterceptor } from '../request/rate-limit.interceptor';

/**
 * Puts RateLimitInterceptor first among the app's global interceptors, whenever it has some.
 * Nest runs global interceptors before a class's and a method's, so a global one that
 * answers without calling the handler (a `CacheInterceptor` registered with APP_INTERCEPTOR
 * or `useGlobalInterceptors`, on a hit) would otherwise return before the interceptor bound
 * to the handler decides a deferred USER limit: that request would not be limited at all.
 *
 * The app registers its global interceptors after the providers are built (APP_INTERCEPTOR
 * once they all are, `useGlobalInterceptors` after `NestFactory.create`), and Nest reads the
 * list as it builds each route, resolver and gateway context; so the list is answered with
 * ours first when it is read, not reordered once. An app with no global interceptor keeps
 * none, so its handlers that need nothing after the guard still run through no interceptor
 * of ours. Where a handler is bound too, the pending work is taken once, by the first one.
 */
export function putFirstAmongGlobalInterceptors(
  config: ApplicationConfig,
  interceptor: RateLimitInterceptor,
): void {
  const globals = config.getGlobalInterceptors.bind(config);
  config.getGlobalInterceptors = () => {
    const registered = globals();
    // Request-scoped ones (APP_INTERCEPTOR with `scope: Scope.REQUEST`) come after these.
    const none = registered.length === 0 && config.getGlobalRequestInterceptors().length === 0;
    if (none || isRateLimitInterceptor(registered[0])) return registered;
    return [interceptor, ...registered];
  };
}
