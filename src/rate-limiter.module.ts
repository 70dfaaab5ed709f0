import {
  Global,
  Injectable,
  Logger,
  Module,
  OnApplicationBootstrap,
  OnApplicationShutdown,
  CanActivate,
  DynamicModule,
  ExecutionContext,
  Inject,
  Optional,
} from '@nestjs/common';
import { APP_FILTER, APP_GUARD, DiscoveryModule, HttpAdapterHost } from '@nestjs/core';
import { RateLimitProblemFilter } from './request/rate-limit-problem.filter';
import { DecisionListeners } from './request/decision-listeners';
import { LimitExplorer } from './compile/limit.explorer';
import { OverloadGates } from './compile/overload-gates';
import { NetworkPolicy } from './keys/network-policy';
import { PeerAddressCapture } from './request/peer-address.capture';
import { RateLimitGuard } from './request/rate-limit.guard';
import { RateLimitInterceptor } from './request/rate-limit.interceptor';
import { InterceptorBinding } from './discovery/interceptor-binding';
import { UncoveredLimitsCheck } from './discovery/uncovered-limits.check';
import { RpcUserLimitsCheck } from './discovery/rpc-user-limits.check';
import { OpenApiDocumentation } from './discovery/openapi-documentation';
import { ConnectionLimits } from './discovery/connection-limits';
import { UpstreamMethods } from './discovery/upstream-methods';
import { RateLimiterFactory } from './limiter/rate-limiter.factory';
import {
  RateLimiterConfigurableModule,
  RATE_LIMITER_OPTIONS,
} from './rate-limiter.module-definition';
import { RateLimiterModuleOptions } from './rate-limiter.options';
import { validateModuleOptions } from './rate-limiter.options-validation';
import { LimiterStore } from './stores/limiter-store';
import { FailurePolicyStore } from './stores/failure/failure-policy.store';
import { RedisStore } from './stores/redis/redis.store';
import { warnIfRedisEvicts } from './stores/redis/redis-eviction.check';
import {
  checkRedisConnection,
  failurePolicyStoreFromOptions,
  storeFromOptions,
} from './store-from-options';
import { whenServing } from './when-serving';
import { RateLimiterHealthIndicator } from './health/rate-limiter.health-indicator';

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
      // A Redis that cannot work (a wrong password...) fails it too, once connected to.
      useFactory: async (options: RateLimiterModuleOptions) => {
        validateModuleOptions(options);
        const logger = new Logger('RateLimiter');
        const store = storeFromOptions(options, logger);
        await checkRedisConnection(store, options);
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
      useFactory: (
        store: FailurePolicyStore,
        options: RateLimiterModuleOptions,
        backend: LimiterStore,
      ) => new RateLimiterFactory(store, options, backend),
      inject: [FailurePolicyStore, RATE_LIMITER_OPTIONS, LimiterStore],
    },
    {
      provide: NetworkPolicy,
      // One instance: the lists can be replaced at run time (NetworkPolicy.setLists).
      useFactory: (options: RateLimiterModuleOptions) =>
        new NetworkPolicy({ allow: options.allow, deny: options.deny }),
      inject: [RATE_LIMITER_OPTIONS],
    },
    LimitExplorer,
    // The overload guard's gates, per handler (@AdaptiveConcurrencyLimit, `overload`).
    OverloadGates,
    DecisionListeners,
    RateLimitGuard,
    GlobalRateLimitGuard,
    UncoveredLimitsCheck,
    RpcUserLimitsCheck,
    PeerAddressCapture,
    { provide: APP_GUARD, useExisting: GlobalRateLimitGuard },
    // Catches only the 429 of `problemDetails: true`.
    { provide: APP_FILTER, useClass: RateLimitProblemFilter },
    // The guard's second phase (USER limits after the app's guards, slots, counts), bound
    // to the handlers that need it: no global interceptor, which would cost every request
    // (first among the app's global interceptors only when it has some: a cache there).
    RateLimitInterceptor,
    InterceptorBinding,
    // Documents limited routes for @nestjs/swagger, when it is installed.
    OpenApiDocumentation,
    // Decides the limits on gateways' handleConnection, where no guard runs.
    ConnectionLimits,
    // Sends the calls of @UpstreamLimit methods through their upstreams.
    UpstreamMethods,
    // Needs nothing of @nestjs/terminus to be built: loaded only when asked for health.
    RateLimiterHealthIndicator,
  ],
  // The guard's own dependencies are exported so `@UseGuards(RateLimitGuard)` resolves anywhere.
  exports: [
    LimiterStore,
    FailurePolicyStore,
    RateLimiterFactory,
    RateLimitGuard,
    LimitExplorer,
    OverloadGates,
    NetworkPolicy,
    DecisionListeners,
    RateLimiterHealthIndicator,
    RATE_LIMITER_OPTIONS,
  ],
})
export class RateLimiterModule
  extends RateLimiterConfigurableModule
  implements OnApplicationBootstrap, OnApplicationShutdown
{
  /** Cancels the start-up check if the app closes before it serves. */
  private cancelCheck: () => void = () => undefined;

  constructor(
    private readonly store: LimiterStore,
    private readonly policyStore: FailurePolicyStore,
    @Optional() private readonly adapterHost?: HttpAdapterHost,
  ) {
    super();
  }

  /**
   * Checks, without delaying start-up, that the store can run its scripts, once the app
   * serves (its HTTP server listens). Only then: the connection the module creates opens with
   * its first command, so an app whose start-up failed before, its port in use included,
   * leaves no socket open.
   */
  onApplicationBootstrap(): void {
    this.cancelCheck = whenServing(this.adapterHost, () => void this.policyStore.check());
  }

  /** `forRoot()` with no options: the in-memory store and every default. */
  static override forRoot(options: RateLimiterModuleOptions = {}): DynamicModule {
    return super.forRoot(options);
  }

  /** Closes the Redis connection the module created; a client passed in stays open. */
  async onApplicationShutdown(): Promise<void> {
    this.cancelCheck();
    await this.store.close();
  }
}
