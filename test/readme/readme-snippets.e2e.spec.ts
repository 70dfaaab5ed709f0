import { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { LimiterStore, RateLimitExceededException, RateLimiterFactory } from 'nestjs-limiter';
import { ManualClock, createTestingStore } from 'nestjs-limiter/testing';
import { call, PLATFORMS, startApp } from '../helpers/http';
import { tsBlockContaining } from './readme-blocks';

/**
 * Each README snippet does what its comments say: the snippets themselves are loaded from
 * README.md and run. The "Testing your app" snippet registers its own jest tests here.
 */
delete process.env.REDIS_URL; // the snippets read it: here they run in memory
/* eslint-disable @typescript-eslint/no-require-imports */
const use = require(tsBlockContaining("@Controller('sms')"));
const asyncConfig = require(tsBlockContaining('forRootAsync('));
const decorators = require(tsBlockContaining("@Controller('limiter')"));
const programmatic = require(tsBlockContaining('class ReportService'));
require(tsBlockContaining("describe('exports'"));
/* eslint-enable @typescript-eslint/no-require-imports */

describe.each(PLATFORMS)('README "Use" on %s', (platform) => {
  let app: INestApplication;
  let port: number;
  beforeAll(async () => {
    ({ app, port } = await startApp(use.AppModule, platform));
  });
  afterAll(() => app.close());

  it('one code a minute per phone: 200, then 429 with Retry-After 60; another phone 200', async () => {
    const send = (phone: string) =>
      call(port, { method: 'POST', path: '/sms/code', json: { phone } });
    expect((await send('+15550001')).status).toBe(200);
    const again = await send('+15550001');
    expect([again.status, again.headers['retry-after']]).toEqual([429, '60']);
    expect((await send('+15550002')).status).toBe(200);
  });
});

describe('README forRootAsync with ConfigService', () => {
  it('takes keyPrefix from the config, with its default', async () => {
    delete process.env.RATE_LIMIT_PREFIX;
    const moduleRef = await Test.createTestingModule({
      imports: [asyncConfig.AppModule],
    }).compile();
    moduleRef.useLogger(false);
    const factory = moduleRef.get(RateLimiterFactory);
    expect(factory.rateLimiter({ key: 'k' }).key).toBe('api:rateLimit:k');
    await moduleRef.close();
  });
});

describe('README Decorators', () => {
  const clock = new ManualClock();
  const store = createTestingStore({ clock });
  let app: INestApplication;
  let port: number;
  const get = (path: string) => call(port, { path });

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      controllers: [decorators.LimiterController],
      imports: [(await import('nestjs-limiter')).RateLimiterModule.forRoot()],
    })
      .overrideProvider(LimiterStore)
      .useValue(store)
      .compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.listen(0, '127.0.0.1');
    port = app.getHttpServer().address().port;
  });
  afterAll(() => app.close());
  beforeEach(() => store.clear());

  it('rate: one request per 5 s, for everybody', async () => {
    expect((await get('/limiter/rate')).status).toBe(200);
    const denied = await get('/limiter/rate');
    expect([denied.status, denied.headers['retry-after']]).toEqual([429, '5']);
    clock.advance(5000);
    expect((await get('/limiter/rate')).status).toBe(200);
  });

  it('search: 10 a second, callers queue up to 2 s for a slot', async () => {
    const queued = Array.from({ length: 21 }, () => get('/limiter/search'));
    await clock.whenWaiting(20);
    expect((await get('/limiter/search')).status).toBe(429); // the 22nd would wait 2.1 s
    clock.advance(2000);
    expect((await Promise.all(queued)).map((reply) => reply.status)).toEqual(Array(21).fill(200));
  });

  it('count: 2 per 10 s per ?key=', async () => {
    const statuses = [];
    for (const key of ['a', 'a', 'a', 'b'])
      statuses.push((await get(`/limiter/count?key=${key}`)).status);
    expect(statuses).toEqual([200, 200, 429, 200]);
    clock.advance(10_000);
    expect((await get('/limiter/count?key=a')).status).toBe(200);
  });
});

describe('README Programmatic use', () => {
  const flush = () => new Promise((resolve) => setImmediate(resolve));
  let clock: ManualClock;
  let service: any;
  beforeEach(() => {
    clock = new ManualClock();
    service = new programmatic.ReportService(new RateLimiterFactory(createTestingStore({ clock })));
  });

  it('report: one per 30 s per user; a refused caller gets 429 at once', async () => {
    expect(await service.report('u1')).toBe('report for u1');
    await expect(service.report('u1')).rejects.toBeInstanceOf(RateLimitExceededException);
    expect(await service.report('u2')).toBe('report for u2');
    clock.advance(30_000);
    expect(await service.report('u1')).toBe('report for u1');
  });

  it('sendAll: 10 at once, then one every 100 ms; resolves with the ms waited', async () => {
    const sent: string[] = [];
    const phones = Array.from({ length: 12 }, (_, i) => `+1555000${i}`);
    const total = service.sendAll(phones, async (phone: string) => void sent.push(phone));
    await clock.whenWaiting(1);
    expect(sent).toHaveLength(10);
    clock.advance(100);
    await clock.whenWaiting(1);
    expect(sent).toHaveLength(11);
    clock.advance(100);
    expect(await total).toBe(200);
    expect(sent).toEqual(phones);
    await flush();
  });

  it('gatewayState: tryAcquire, reserve and decide on a fresh bucket', async () => {
    const [taken, waitMs, decision] = await service.gatewayState();
    expect([taken, waitMs]).toEqual([true, 0]);
    expect(decision).toMatchObject({ allowed: true, limit: 10, remaining: 7, waitMs: 0 });
  });

  it('login: five attempts a minute per account name', async () => {
    const results = [];
    for (let i = 0; i < 6; i++) results.push(await service.login('alice'));
    expect(results).toEqual([true, true, true, true, true, false]);
    expect(await service.login('bob')).toBe(true);
  });
});
