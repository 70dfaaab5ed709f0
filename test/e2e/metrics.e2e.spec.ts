import { Controller, Get, INestApplication, Module } from '@nestjs/common';
import { metrics } from '@opentelemetry/api';
import {
  AggregationTemporality,
  DataPoint,
  Histogram,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import {
  CountLimit,
  Decision,
  LimiterStore,
  LimitType,
  RateLimiterFactory,
  RateLimiterModule,
  RateLimiterModuleOptions,
} from '../../src';
import { useAppOnRedis } from '../helpers/app-on-redis';
import { call, Platform, PLATFORMS, startApp } from '../helpers/http';

@Controller('metrics')
class MetricsController {
  @Get('login')
  @CountLimit({ name: 'login', limit: 2, period: 60, limitType: LimitType.IP })
  login() {
    return 'ok';
  }

  @Get('signup')
  @CountLimit({ name: 'login', limit: 2, period: 60, limitType: LimitType.IP })
  signup() {
    return 'ok';
  }
}

/** A meter provider of the test's own, registered globally, read on demand. */
function useMeterProvider() {
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 60_000 });
  const provider = new MeterProvider({ readers: [reader] });
  beforeAll(() => {
    metrics.disable();
    metrics.setGlobalMeterProvider(provider);
  });
  afterAll(async () => {
    metrics.disable();
    await provider.shutdown();
  });
  return async (name: string) => {
    await reader.forceFlush();
    const exported = exporter.getMetrics();
    const last = exported[exported.length - 1];
    const metric = last?.scopeMetrics
      .flatMap((scope) => scope.metrics)
      .find((found) => found.descriptor.name === name);
    return (metric?.dataPoints ?? []) as DataPoint<number | Histogram>[];
  };
}

const countsOf = (points: DataPoint<number | Histogram>[]) =>
  Object.fromEntries(
    points.map((point) => [
      `${point.attributes['ratelimit.limit']} ${point.attributes['ratelimit.outcome']}`,
      point.value,
    ]),
  );

describe.each(PLATFORMS)('OpenTelemetry metrics (%s)', (platform: Platform) => {
  const read = useMeterProvider();
  const env = useAppOnRedis([MetricsController], platform);

  it('counts 2 allowed and 3 denied for a limit of 2 after 5 requests, by its name', async () => {
    const statuses = [];
    for (let i = 0; i < 5; i++)
      statuses.push((await call(env.port, { path: '/metrics/login' })).status);
    expect(statuses).toEqual([200, 200, 429, 429, 429]);
    const points = await read('ratelimit.decisions');
    // The second request left 0 of 2: under the default share of 0.1, also near the limit.
    expect(countsOf(points)).toEqual({
      'login allowed': 2,
      'login denied': 3,
      'login near-limit': 1,
    });
    const attributes = points.flatMap((point) => Object.values(point.attributes));
    expect(attributes.filter((value) => String(value).includes('127.0.0.1'))).toEqual([]);
    expect(points.map((point) => Object.keys(point.attributes).sort())).toEqual(
      points.map(() => ['ratelimit.handler', 'ratelimit.limit', 'ratelimit.outcome']),
    );
    expect(new Set(points.map((point) => point.attributes['ratelimit.handler']))).toEqual(
      new Set(['MetricsController.login']),
    );

    const durations = await read('ratelimit.store.duration');
    expect(durations).toHaveLength(1);
    const histogram = durations[0].value as Histogram;
    // At least the 2 allowed and the first denial (later ones are answered from the denial cache).
    expect(histogram.count).toBeGreaterThanOrEqual(3);
    expect(histogram.sum).toBeGreaterThan(0);
    expect(histogram.max).toBeLessThan(5); // seconds, not milliseconds
    expect(durations[0].attributes).toEqual({});
  });

  it('counts a limit name shared by two handlers in a series per handler', async () => {
    for (let i = 0; i < 3; i++) await call(env.port, { path: '/metrics/signup' });
    const byHandler = (await read('ratelimit.decisions')).map(
      (point) =>
        `${point.attributes['ratelimit.handler']} ${point.attributes['ratelimit.limit']} ${point.attributes['ratelimit.outcome']} ${point.value}`,
    );
    expect(byHandler.sort()).toEqual([
      'MetricsController.login login allowed 2',
      'MetricsController.login login denied 3',
      'MetricsController.login login near-limit 1',
      'MetricsController.signup login allowed 2',
      'MetricsController.signup login denied 1',
      'MetricsController.signup login near-limit 1',
    ]);
  });

  it("counts a programmatic limiter's decisions under its algorithm's name, never its key", async () => {
    const factory = env.app.get(RateLimiterFactory);
    const limiter = factory.countLimiter({ key: 'user:alice@example.com', limit: 1, period: 60 });
    expect([await limiter.tryAcquire(), await limiter.tryAcquire()]).toEqual([true, false]);
    const counts = countsOf(await read('ratelimit.decisions'));
    expect(counts['countLimit allowed']).toBe(1);
    expect(counts['countLimit denied']).toBe(1);
    expect(JSON.stringify(counts)).not.toContain('alice');
  });
});

describe('metrics: false', () => {
  const read = useMeterProvider();
  const options: Omit<RateLimiterModuleOptions, 'redis'> = { metrics: false };
  const env = useAppOnRedis([MetricsController], 'express', options);

  it('records nothing', async () => {
    const statuses = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await call(env.port, { path: '/metrics/login' })).status);
    expect(statuses).toEqual([200, 200, 429]);
    expect(await read('ratelimit.decisions')).toEqual([]);
    expect(await read('ratelimit.store.duration')).toEqual([]);
  });
});

class FailingStore extends LimiterStore {
  evaluate(): Promise<Decision> {
    return Promise.reject(new Error('backend down'));
  }
}

describe('store errors', () => {
  const read = useMeterProvider();
  let app: INestApplication;
  let port: number;
  beforeAll(async () => {
    @Module({
      imports: [RateLimiterModule.forRoot({ store: new FailingStore() })],
      controllers: [MetricsController],
    })
    class AppModule {}
    ({ app, port } = await startApp(AppModule, 'express'));
  });
  afterAll(() => app.close());

  it("are counted under the limit's name, from the guard and from the factory", async () => {
    expect((await call(port, { path: '/metrics/login' })).status).toBe(200); // 'allow'
    const limiter = app.get(RateLimiterFactory).countLimiter({ key: 'k', limit: 1, period: 60 });
    expect(await limiter.tryAcquire()).toBe(true);
    expect(countsOf(await read('ratelimit.decisions'))).toEqual({
      'login store-error': 1,
      'countLimit store-error': 1,
    });
  });
});

describe('a meter provider registered after traffic began', () => {
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 60_000 });
  const provider = new MeterProvider({ readers: [reader] });
  beforeAll(() => metrics.disable());
  afterAll(async () => {
    metrics.disable();
    await provider.shutdown();
  });
  const env = useAppOnRedis([MetricsController], 'express');

  it('receives every decision made once it is registered, none before', async () => {
    const limiter = env.app
      .get(RateLimiterFactory)
      .countLimiter({ key: 'late', limit: 10, period: 60 });
    // Decided on the API's no-op provider: recorded nowhere.
    expect([await limiter.tryAcquire(), await limiter.tryAcquire()]).toEqual([true, true]);
    metrics.setGlobalMeterProvider(provider);
    expect([
      await limiter.tryAcquire(),
      await limiter.tryAcquire(),
      await limiter.tryAcquire(),
    ]).toEqual([true, true, true]);
    await reader.forceFlush();
    const exported = exporter.getMetrics();
    const points = (exported[exported.length - 1]?.scopeMetrics ?? [])
      .flatMap((scope) => scope.metrics)
      .find((metric) => metric.descriptor.name === 'ratelimit.decisions')?.dataPoints;
    expect(countsOf((points ?? []) as DataPoint<number>[])).toEqual({ 'countLimit allowed': 3 });
  });
});
