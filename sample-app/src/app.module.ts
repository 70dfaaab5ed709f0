import { DynamicModule, Module } from '@nestjs/common';
import { RateLimiterModule, RateLimiterModuleOptions } from 'nestjs-limiter';
import { LimiterController } from './limiter.controller';
import { ReportsController } from './reports.controller';
import { SmsController } from './sms.controller';

@Module({})
export class AppModule {
  /** `redis` absent: the embedded in-memory store. */
  static register(options: RateLimiterModuleOptions = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [
        RateLimiterModule.forRoot({
          // The sample reads the user from a header; a real app would use its auth guard's req.user.
          resolveUser: (request) => request.headers?.['x-user-id'],
          ...options,
        }),
      ],
      controllers: [LimiterController, SmsController, ReportsController],
    };
  }
}
