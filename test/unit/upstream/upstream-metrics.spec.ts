import { metrics } from '@opentelemetry/api';
import {
  AggregationTemporality,
  DataPoint,
  Histogram,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { MemoryStore, RateLimiterFactory, UpstreamBusyError } from '../../../src';

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

async function points(name: string) {
  await reader.forceFlush();
  const exported = exporter.getMetrics();
  const metric = exported[exported.length - 1]?.scopeMetrics
    .flatMap((scope) => scope.metrics)
    .find((found) => found.descriptor.name === name);
  return (metric?.dataPoints ?? []) as DataPoint<number | Histogram>[];
}

describe('upstream metrics on the module meter', () => {
  it('counts calls by upstream and outcome, records waits, and the learned rate', async () => {
    const factory = new RateLimiterFactory(new MemoryStore(), { metrics: {} });
    const api = factory.upstream({ name: 'partner', rate: 1, capacity: 2, timeout: 0 });
    const outcomes = await Promise.allSettled([1, 2, 3].map(() => api.call(() => 'ok')));
    expect((outcomes[2] as PromiseRejectedResult).reason).toBeInstanceOf(UpstreamBusyError);
    await api.call(() => ({ status: 200, headers: {} })).catch(() => undefined);
    const calls = await points('ratelimit.upstream.calls');
    const count = (outcome: string) =>
      calls.find(
        (point) =>
          point.attributes['ratelimit.upstream'] === 'partner' &&
          point.attributes['ratelimit.outcome'] === outcome,
      )?.value;
    expect(count('started')).toBe(2);
    expect(count('busy')).toBe(2);
    const waits = await points('ratelimit.upstream.wait');
    expect((waits[0].value as Histogram).count).toBe(2);
    // The learned rate appears once the shared record has answered.
    let rate: DataPoint<number | Histogram> | undefined;
    for (let waited = 0; !rate && waited < 5000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      rate = (await points('ratelimit.upstream.rate')).find(
        (point) => point.attributes['ratelimit.upstream'] === 'partner',
      );
    }
    expect(rate?.value).toBe(1);
    factory.onApplicationShutdown();
  });
});
