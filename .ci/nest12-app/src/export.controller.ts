import { Controller, Get } from '@nestjs/common';
import { CountLimit, RateLimit } from 'nestjs-limiter';

@Controller()
export class ExportController {
  /** One export a minute; the next one waits up to a minute for its slot. */
  @Get('export')
  @RateLimit({ rate: 1 / 60, capacity: 1, timeout: '1m' })
  export(): string {
    return 'done';
  }

  /** Once a minute per client: the second call gets 429. */
  @Get('hello')
  @CountLimit({ limit: 1, period: '1m' })
  hello(): string {
    return 'hello';
  }
}
