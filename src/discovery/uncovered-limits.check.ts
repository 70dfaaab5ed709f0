import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { GUARDS_METADATA } from '@nestjs/common/constants';
import { APP_GUARD, DiscoveryService, MetadataScanner } from '@nestjs/core';
import { isSkipped, readLimits } from '../decorators/limit-metadata.accessor';
import { RATE_LIMITER_OPTIONS } from '../rate-limiter.module-definition';
import { limiterMessages } from '../rate-limiter.messages';
import { RateLimiterModuleOptions } from '../rate-limiter.options';
import { RateLimitGuard } from '../request/rate-limit.guard';
import { isPlainProvider, warnLimitsOnProviders } from './provider-limits.check';
import { isConnectionHandler, isGateway } from '../compile/connection-handler';

/** A guard as `@UseGuards` or APP_GUARD holds it: a class or an instance. */
function isRateLimitGuard(guard: unknown): boolean {
  if (guard instanceof RateLimitGuard) return true;
  return (
    typeof guard === 'function' &&
    (guard === RateLimitGuard || guard.prototype instanceof RateLimitGuard)
  );
}

function guardsOf(target: object): unknown[] {
  return (Reflect.getMetadata(GUARDS_METADATA, target) as unknown[] | undefined) ?? [];
}

/**
 * With `global: false`, a limit decorator works only where `@UseGuards(RateLimitGuard)`
 * stands; forgetting it leaves the handler silently unlimited. The same holds for WebSocket
 * gateways whatever `global` says: Nest runs no APP_GUARD there. Logs one warning per
 * decorated handler that no RateLimitGuard covers, at start-up; and one per provider
 * method with limits, which no guard ever covers.
 */
@Injectable()
export class UncoveredLimitsCheck implements OnApplicationBootstrap {
  private readonly logger = new Logger('RateLimiter');

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    @Inject(RATE_LIMITER_OPTIONS) private readonly options: RateLimiterModuleOptions,
  ) {}

  onApplicationBootstrap(): void {
    warnLimitsOnProviders(this.discovery, this.scanner, this.logger);
    // A plain provider's limits were warned about above: no guard could cover them.
    const wrappers = [
      ...this.discovery.getControllers(),
      ...this.discovery.getProviders().filter((wrapper) => !isPlainProvider(wrapper.metatype)),
    ];
    // An app may register RateLimitGuard as its own APP_GUARD: then everything is covered.
    const globallyGuarded =
      this.options.global !== false ||
      this.discovery
        .getProviders()
        .some(
          (wrapper) =>
            typeof wrapper.token === 'string' &&
            wrapper.token.startsWith(APP_GUARD) &&
            (isRateLimitGuard(wrapper.instance) || isRateLimitGuard(wrapper.metatype)),
        );
    const warned = new Set<string>(); // a provider listed by two modules is one handler
    for (const { metatype, instance } of wrappers) {
      if (!instance || typeof metatype !== 'function' || !metatype.prototype) continue;
      const prototype = Object.getPrototypeOf(instance);
      if (!prototype) continue;
      const gateway = isGateway(metatype);
      if (globallyGuarded && !gateway) continue;
      const classGuarded = guardsOf(metatype).some(isRateLimitGuard);
      for (const name of this.scanner.getAllMethodNames(prototype)) {
        const handler = prototype[name];
        if (typeof handler !== 'function' || classGuarded) continue;
        // The module decides a connection's limits itself (connection-limits.ts).
        if (isConnectionHandler(metatype, name)) continue;
        if (readLimits(metatype, handler).length === 0 || isSkipped(metatype, handler)) continue;
        const handlerName = `${metatype.name}.${name}`;
        if (!guardsOf(handler).some(isRateLimitGuard) && !warned.has(handlerName)) {
          warned.add(handlerName);
          this.logger.warn(
            gateway
              ? limiterMessages.unguardedGateway(handlerName)
              : limiterMessages.uncoveredHandler(handlerName),
          );
        }
      }
    }
  }
}
