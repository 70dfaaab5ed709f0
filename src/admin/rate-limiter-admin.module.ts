import { DynamicModule, Module } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { DecisionListeners } from '../request/decision-listeners';
import { LimitExplorer } from '../compile/limit.explorer';
import { RATE_LIMITER_OPTIONS } from '../rate-limiter.module-definition';
import { RateLimiterModuleOptions } from '../rate-limiter.options';
import { LimiterStore } from '../stores/limiter-store';
import { RedisStore } from '../stores/redis/redis.store';
import { adminControllerFor } from './admin.controller';
import { RateLimiterAdminOptions, validateAdminOptions } from './admin.options';
import { NetworkPolicy } from '../keys/network-policy';
import { AdminService } from './admin.service';
import { MemoryDenialLog, RedisDenialLog } from './denial-log';
import { LiveSettings } from './live-settings';
import { MemorySettingsStore, RedisSettingsStore } from './settings-store';

/**
 * A page and a JSON API to see and act on limits live: the most denied keys, the keys
 * blocked now, peek / reset / unblock one key, live overrides of a named limit and the
 * network lists. Kept in the limiter's Redis (its `keyPrefix` + `admin:`), so every server
 * sees the same; every server that imports this module applies overrides within a second.
 * Needs `RateLimiterModule.forRoot` in the app, and at least one guard.
 *
 * @example
 * ```ts
 * @Module({
 *   imports: [
 *     RateLimiterModule.forRoot({ redis: process.env.REDIS_URL }),
 *     RateLimiterAdminModule.forRoot({ path: 'rate-limits', guards: [AdminGuard] }),
 *   ],
 * })
 * export class AppModule {}
 * ```
 * @publicApi
 */
@Module({})
export class RateLimiterAdminModule {
  static forRoot(options: RateLimiterAdminOptions): DynamicModule {
    const { path, guards } = validateAdminOptions(options);
    return {
      module: RateLimiterAdminModule,
      imports: options.imports ?? [],
      controllers: [adminControllerFor(path, guards)],
      providers: [
        {
          provide: LiveSettings,
          useFactory: (store: LimiterStore, limiter: RateLimiterModuleOptions) =>
            new LiveSettings(
              store instanceof RedisStore
                ? new RedisSettingsStore(store.client, limiter.keyPrefix ?? '')
                : new MemorySettingsStore(),
            ),
          inject: [LimiterStore, RATE_LIMITER_OPTIONS],
        },
        {
          provide: AdminService,
          useFactory: (
            explorer: LimitExplorer,
            store: LimiterStore,
            listeners: DecisionListeners,
            settings: LiveSettings,
            limiter: RateLimiterModuleOptions,
            networks: NetworkPolicy,
            adapterHost?: HttpAdapterHost,
          ) =>
            new AdminService(
              explorer,
              // The store itself, not the failure policy: an admin action the store did not
              // perform must fail (503), not be reported done as an 'allow' policy would.
              store,
              listeners,
              store instanceof RedisStore
                ? new RedisDenialLog(store.client, limiter.keyPrefix ?? '')
                : new MemoryDenialLog(),
              settings,
              networks,
              adapterHost,
            ),
          inject: [
            LimitExplorer,
            LimiterStore,
            DecisionListeners,
            LiveSettings,
            RATE_LIMITER_OPTIONS,
            NetworkPolicy,
            { token: HttpAdapterHost, optional: true },
          ],
        },
      ],
      exports: [LiveSettings],
    };
  }
}
