import { ConfigurableModuleBuilder } from '@nestjs/common';
import { RateLimiterModuleOptions } from './rate-limiter.options';

export const {
  ConfigurableModuleClass: RateLimiterConfigurableModule,
  MODULE_OPTIONS_TOKEN: RATE_LIMITER_OPTIONS,
  OPTIONS_TYPE: RATE_LIMITER_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: RATE_LIMITER_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<RateLimiterModuleOptions>({ moduleName: 'RateLimiter' })
  .setClassMethodName('forRoot')
  .build();
