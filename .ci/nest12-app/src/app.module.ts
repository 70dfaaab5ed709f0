import { Module } from '@nestjs/common';
import { RateLimiterModule } from 'nestjs-limiter';
import { ExportController } from './export.controller.js';

@Module({
  imports: [
    RateLimiterModule.forRoot({
      redis: process.env.REDIS_URL,
      keyPrefix: process.env.KEY_PREFIX ?? 'nest12-app:',
    }),
  ],
  controllers: [ExportController],
})
export class AppModule {}
