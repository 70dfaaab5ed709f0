import { Controller, Get, Injectable, UseGuards } from '@nestjs/common';
import { Query, Resolver } from '@nestjs/graphql';
import { Test } from '@nestjs/testing';
import { SubscribeMessage, WebSocketGateway } from '@nestjs/websockets';
import {
  CountLimit,
  RateLimit,
  RateLimitGuard,
  RateLimiterModule,
  RateLimiterModuleOptions,
  SkipRateLimit,
} from 'nestjs-limiter';
import { CaptureLogger } from '../helpers/capture-logger';

@Injectable()
class SmsService {
  @CountLimit({ limit: 1, period: 60 })
  send() {
    return 'sent';
  }

  plain() {
    return 'plain';
  }

  @SkipRateLimit()
  @CountLimit({ limit: 1, period: 60 })
  skipped() {
    return 'skipped';
  }
}

@Injectable()
@RateLimit({ rate: 1, burst: 1 })
class AuditService {
  record() {
    return 'recorded';
  }
}

@Resolver()
class ItemResolver {
  @Query(() => String)
  @CountLimit({ limit: 1, period: 60 })
  item() {
    return 'item';
  }
}

@WebSocketGateway()
@UseGuards(RateLimitGuard)
class ChatGateway {
  @SubscribeMessage('chat')
  @CountLimit({ limit: 1, period: 60 })
  chat() {
    return 'ok';
  }
}

@Controller()
class SmsController {
  constructor(private readonly sms: SmsService) {}

  @Get('sms')
  @CountLimit({ limit: 1, period: 60 })
  send() {
    return this.sms.send();
  }
}

async function warningsOf(options: RateLimiterModuleOptions): Promise<string[]> {
  const logger = new CaptureLogger();
  const moduleRef = await Test.createTestingModule({
    imports: [RateLimiterModule.forRoot(options)],
    controllers: [SmsController],
    providers: [SmsService, AuditService, ItemResolver, ChatGateway],
  })
    .setLogger(logger)
    .compile();
  const app = moduleRef.createNestApplication({ logger });
  await app.init();
  await app.close();
  return logger.lines
    .filter((line) => line.level === 'warn' && line.message.includes(' has rate limits,'))
    .map((line) => line.message);
}

const onProvider = (where: string) =>
  `${where} has rate limits, but it is a provider, not a controller, resolver or gateway: no guard runs when its methods are called, so its limits are not enforced. Use RateLimiterFactory inside the method to limit it`;

describe('a limit decorator on a provider', () => {
  it('logs one warning per decorated provider method and class, none for handlers', async () => {
    expect(await warningsOf({})).toEqual([
      onProvider('SmsService.send'),
      onProvider('AuditService'),
    ]);
  });

  it('with global: false, the same warnings, once each', async () => {
    const warnings = await warningsOf({ global: false });
    expect(warnings.filter((w) => w.includes('provider'))).toEqual([
      onProvider('SmsService.send'),
      onProvider('AuditService'),
    ]);
    // The controller is uncovered, the resolver too; the services are not named again.
    expect(warnings.filter((w) => w.includes('no RateLimitGuard covers'))).toEqual([
      expect.stringMatching(/^SmsController\.send /),
      expect.stringMatching(/^ItemResolver\.item /),
    ]);
  });
});
