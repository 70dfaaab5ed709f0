import { Controller, Get, Module } from '@nestjs/common';
import { metrics } from '@opentelemetry/api';
import {
  AggregationTemporality,
  DataPoint,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { AdaptiveConcurrencyLimit, RateLimiterModule } from '../../src';
import { call, HttpReply, startApp } from '../helpers/http';

const held: (() => void)[] = [];

@Controller('work')
class WorkController {
  @Get()
  @AdaptiveConcurrencyLimit({
    initialLimit: 2,
    minLimit: 2,
    maxLimit: 2,
    reserve: 0,
    priority: '#{headers["x-priority"]}',
  })
  async work() {
    await new Promise<void>((resolve) => held.push(resolve));
    return 'ok';
  }
}

describe('the overload guard through the OpenTelemetry meter', () => {
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 60_000 });
  const provider = new MeterProvider({ readers: [reader] });
  let app: { close(): Promise<void> };
  let port: number;
  beforeAll(async () => {
    metrics.disable();
    metrics.setGlobalMeterProvider(provider);
    @Module({ imports: [RateLimiterModule.forRoot()], controllers: [WorkController] })
    class AppModule {}
    ({ app, port } = await startApp(AppModule, 'express'));
  });
  afterAll(async () => {
    held.splice(0).forEach((go) => go());
    await app?.close();
    metrics.disable();
    await provider.shutdown();
  });
  const read = async (name: string) => {
    await reader.forceFlush();
    const exported = exporter.getMetrics();
    const metric = exported[exported.length - 1]?.scopeMetrics
      .flatMap((scope) => scope.metrics)
      .find((found) => found.descriptor.name === name);
    return ((metric?.dataPoints ?? []) as DataPoint<number>[]).map((point) => [
      point.attributes,
      point.value,
    ]);
  };

  it('reports the limit, the requests in flight and the refusals by class', async () => {
    const replies: Promise<HttpReply>[] = [];
    for (let i = 0; i < 2; i++) replies.push(call(port, { path: '/work' }));
    while (held.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    const refused = await Promise.all([
      call(port, { path: '/work', headers: { 'x-priority': 'sheddable' } }),
      call(port, { path: '/work', headers: { 'x-priority': 'critical' } }),
      call(port, { path: '/work', headers: { 'x-priority': 'critical' } }),
    ]);
    expect(refused.map((reply) => reply.status)).toEqual([503, 503, 503]);
    const gate = { 'ratelimit.limit': 'WorkController.work' };
    expect(await read('ratelimit.overload.limit')).toEqual([[gate, 2]]);
    expect(await read('ratelimit.overload.in_flight')).toEqual([[gate, 2]]);
    expect(await read('ratelimit.overload.refused')).toEqual([
      [{ ...gate, 'ratelimit.priority': 'sheddable' }, 1],
      [{ ...gate, 'ratelimit.priority': 'critical' }, 2],
    ]);
    held.splice(0).forEach((go) => go());
    expect((await Promise.all(replies)).map((reply) => reply.status)).toEqual([200, 200]);
    expect(await read('ratelimit.overload.in_flight')).toEqual([[gate, 0]]);
  });
});
