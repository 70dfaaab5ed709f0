import { CanActivate, ModuleMetadata, Type } from '@nestjs/common';

/**
 * `RateLimiterAdminModule.forRoot(options)`.
 *
 * @publicApi
 */
export interface RateLimiterAdminOptions {
  /** Where the page is served (`/<path>`) and its JSON API (`/<path>/api`); default `'rate-limits'`. */
  path?: string;
  /**
   * Guards that decide who may see and act on limits: at least one (the page shows keys,
   * hence IPs and user ids). They run before every route of the page and its API.
   */
  guards: (Type<CanActivate> | CanActivate)[];
  /** Modules whose providers the guards inject. */
  imports?: ModuleMetadata['imports'];
}

/** How long denials are kept for `top`, in minutes. */
export const DENIAL_MINUTES_KEPT = 15;

const SEGMENT = /^[A-Za-z0-9._~-]+(\/[A-Za-z0-9._~-]+)*$/;

/** The options, checked: a missing guard or a bad path fails start-up naming the option. */
export function validateAdminOptions(
  options: RateLimiterAdminOptions | undefined,
): Required<Pick<RateLimiterAdminOptions, 'path' | 'guards'>> {
  const where = 'RateLimiterAdminModule.forRoot';
  const guards = options?.guards;
  if (!Array.isArray(guards) || guards.length === 0) {
    throw new Error(
      `${where}: option 'guards' must list at least one guard (the admin page shows keys, IPs and user ids, and can reset limits): ` +
        `forRoot({ path: 'rate-limits', guards: [AdminGuard] })`,
    );
  }
  guards.forEach((guard, i) => {
    const isClass = typeof guard === 'function';
    const isInstance = typeof (guard as CanActivate)?.canActivate === 'function';
    if (!isClass && !isInstance) {
      throw new Error(
        `${where}: option 'guards[${i}]' must be a guard class or an object with canActivate, got ${String(guard)}`,
      );
    }
  });
  const path = (options?.path ?? 'rate-limits').replace(/^\/+|\/+$/g, '');
  if (!SEGMENT.test(path)) {
    throw new Error(
      `${where}: option 'path' must be a URL path such as 'rate-limits' or 'ops/limits', got '${String(options?.path)}'`,
    );
  }
  return { path, guards };
}
