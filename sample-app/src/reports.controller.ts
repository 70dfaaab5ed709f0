import { Controller, Get } from '@nestjs/common';
import { CountLimit, SkipRateLimit } from 'nestjs-limiter';

/**
 * A class-level limit: three requests a minute on each route of the controller. Each handler
 * has its own key, so `daily` and `weekly` are counted separately.
 */
@Controller('reports')
@CountLimit({ limit: 3, period: 60 })
export class ReportsController {
  @Get('daily')
  daily() {
    return { report: 'daily' };
  }

  @Get('weekly')
  weekly() {
    return { report: 'weekly' };
  }

  /** Exempt from every limit. */
  @Get('health')
  @SkipRateLimit()
  health() {
    return { ok: true };
  }
}
