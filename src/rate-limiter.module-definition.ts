import { ConfigurableModuleAsyncOptions, ConfigurableModuleBuilder } from '@nestjs/common';
import { RateLimiterModuleOptions } from './rate-limiter.options';

export const {
  ConfigurableModuleClass: RateLimiterConfigurableModule,
  MODULE_OPTIONS_TOKEN: RATE_LIMITER_OPTIONS,
} = new ConfigurableModuleBuilder<RateLimiterModuleOptions>({ moduleName: 'RateLimiter' })
  .setClassMethodName('forRoot')
  .build();

/**
 * Options of `RateLimiterModule.forRootAsync`: `useFactory` (with `inject` and `imports`),
 * `useClass` or `useExisting` giving {@link RateLimiterModuleOptions}.
 *
 * @publicApi
 */
export type RateLimiterModuleAsyncOptions =
  ConfigurableModuleAsyncOptions<RateLimiterModuleOptions>;
