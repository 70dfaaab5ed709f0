import { Controller, Get, INestApplication, LoggerService, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import {
  CountLimit,
  Decision,
  KeyTemplateSyntaxError,
  LimiterConfigError,
  LimiterStore,
  RateLimiterFactory,
  RateLimiterModule,
  StoreUnavailableError,
} from 'nestjs-limiter';
import { call, PLATFORMS, startApp } from '../helpers/http';

/** A store whose every decision fails, as an unreachable Redis would. */
class FailingStore extends LimiterStore {
  evaluate(): Promise<Decision> {
    return Promise.reject(new Error('connection refused'));
  }
}

@Controller('report')
class ReportController {
  constructor(private readonly limiters: RateLimiterFactory) {}

  @Get()
  async report() {
    await this.limiters.countLimiter({ key: 'report', limit: 1, period: 60 }).tryAcquire();
    return { ok: true };
  }
}

@Module({
  imports: [RateLimiterModule.forRoot({ store: new FailingStore(), onStoreError: 'deny' })],
  controllers: [ReportController],
})
class DenyModule {}

function recordingLogger(errors: unknown[][]): LoggerService {
  return {
    log: () => undefined,
    warn: () => undefined,
    error: (...args: unknown[]) => errors.push(args),
  };
}

describe.each(PLATFORMS)("StoreUnavailableError from the factory under 'deny' (%s)", (platform) => {
  let app: INestApplication;
  let port: number;
  const errors: unknown[][] = [];

  beforeAll(async () => {
    ({ app, port } = await startApp(DenyModule, platform, recordingLogger(errors)));
  });
  afterAll(() => app.close());

  it('answers 503 with a generic body, and logs no error with a stack', async () => {
    const reply = await call(port, { path: '/report' });
    expect(reply.status).toBe(503);
    expect(reply.body).toEqual({ statusCode: 503, message: 'Rate limiting is unavailable' });
    expect(errors).toEqual([]);
  });
});

describe('StoreUnavailableError', () => {
  it('is a 503 HttpException whose message and cause keep the details', () => {
    const cause = new Error('ECONNREFUSED');
    const error = new StoreUnavailableError('the store failed', cause);
    expect(error.getStatus()).toBe(503);
    expect([error.name, error.message, error.cause]).toEqual([
      'StoreUnavailableError',
      'the store failed: ECONNREFUSED',
      cause,
    ]);
  });
});

describe('a key template syntax error at start-up', () => {
  @Controller('bad')
  class BadTemplateController {
    @Get()
    @CountLimit({ key: 'sms:#{body.}', limit: 1, period: 60 })
    send() {
      return 'ok';
    }
  }

  it('rejects app.init() with a LimiterConfigError whose cause is the KeyTemplateSyntaxError', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [RateLimiterModule.forRoot()],
      controllers: [BadTemplateController],
    }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    const failure = await app.init().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(LimiterConfigError);
    expect((failure as Error).message).toBe(
      "@CountLimit on BadTemplateController.send: Invalid key template 'sms:#{body.}': expected a property name after '.' at position 11",
    );
    expect((failure as Error).cause).toBeInstanceOf(KeyTemplateSyntaxError);
    await app.close();
  });
});
