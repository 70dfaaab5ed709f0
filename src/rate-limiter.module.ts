import {
  Global,
  Injectable,
  Logger,
  Module,
  OnApplicationShutdown,
  CanActivate,
  DynamicModule,
  ExecutionContext,
  Inject,
} from '@nestjs/common';
import { APP_GUARD, DiscoveryModule } from '@nestjs/core';
import { LimitExplorer } from './guard/limit.explorer';
import { PeerAddressCapture } from './guard/peer-address.capture';
import { RateLimitGuard } from './guard/rate-limit.guard';
import { UncoveredLimitsCheck } from './guard/uncovered-limits.check';
import { RateLimiterFactory } from './limiter/rate-limiter.factory';
import {
  RateLimiterConfigurableModule,
  RATE_LIMITER_OPTIONS,
} from './rate-limiter.module-definition';
import { RateLimiterModuleOptions } from './rate-limiter.options';
import { validateModuleOptions } from './rate-limiter.options-validation';
import { LimiterStore } from './stores/limiter-store';
import { FailurePolicyStore } from './stores/failure/failure-policy.store';
import { RedisStore } from './stores/redis.store';
import { warnIfRedisEvicts } from './stores/redis-eviction.check';
import { failurePolicyStoreFromOptions, storeFromOptions } from './stores/store-from-options';

/** The APP_GUARD: the real guard unless the options say `global: false`. */
@Injectable()
class GlobalRateLimitGuard implements CanActivate {
  constructor(
    private readonly guard: RateLimitGuard,
    @Inject(RATE_LIMITER_OPTIONS) private readonly options: RateLimiterModuleOptions,
  ) {}

  canActivate(context: ExecutionContext): Promise<boolean> | boolean {
    return this.options.global === false ? true : this.guard.canActivate(context);
  }
}

/**
 * Distributed rate limiting: `RateLimiterModule.forRoot({ redis })` once, in the root module,
 * then limit decorators on controllers. Global: the factory and the guard are injectable
 * everywhere.
 *
 * @example
 * ```ts
 * @Module({ imports: [RateLimiterModule.forRoot({ redis: process.env.REDIS_URL })] })
 * export class AppModule {}
 * ```
 * @publicApi
 */
@Global()
@Module({
  imports: [DiscoveryModule],
  providers: [
    {
      provide: LimiterStore,
      // The first provider built: a wrong module option fails start-up before anything connects.
      useFactory: (options: RateLimiterModuleOptions) => {
        validateModuleOptions(options);
        const logger = new Logger('RateLimiter');
        const store = storeFromOptions(options, logger);
        if (store instanceof RedisStore) warnIfRedisEvicts(store.client, logger);
        return store;
      },
      inject: [RATE_LIMITER_OPTIONS],
    },
    {
      provide: FailurePolicyStore,
      // Checked again here: a store given by overrideProvider(LimiterStore) skips the factory above.
      useFactory: (store: LimiterStore, options: RateLimiterModuleOptions) => {
        validateModuleOptions(options);
        return failurePolicyStoreFromOptions(store, options, new Logger('RateLimiter'));
      },
      inject: [LimiterStore, RATE_LIMITER_OPTIONS],
    },
    {
      provide: RateLimiterFactory,
      useFactory: (store: FailurePolicyStore, options: RateLimiterModuleOptions) =>
        new RateLimiterFactory(store, options),
      inject: [FailurePolicyStore, RATE_LIMITER_OPTIONS],
    },
    LimitExplorer,
    RateLimitGuard,
    GlobalRateLimitGuard,
    UncoveredLimitsCheck,
    PeerAddressCapture,
    { provide: APP_GUARD, useExisting: GlobalRateLimitGuard },
  ],
  // The guard's own dependencies are exported so `@UseGuards(RateLimitGuard)` resolves anywhere.
  exports: [
    LimiterStore,
    FailurePolicyStore,
    RateLimiterFactory,
    RateLimitGuard,
    LimitExplorer,
    RATE_LIMITER_OPTIONS,
  ],
})
export class RateLimiterModule
  extends RateLimiterConfigurableModule
  implements OnApplicationShutdown
{
  constructor(private readonly store: LimiterStore) {
    super();
  }

  /** `forRoot()` with no options: the in-memory store and every default. */
  static override forRoot(options: RateLimiterModuleOptions = {}): DynamicModule {
    return super.forRoot(options);
  }

  /** Closes the Redis connection the module created; a client passed in stays open. */
  async onApplicationShutdown(): Promise<void> {
    await this.store.close();
  }
}
