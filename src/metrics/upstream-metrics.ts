import { optionalPackage } from '../optional-package';

/** The instrument names of the upstream budgets. */
const UPSTREAM_CALLS_METRIC = 'ratelimit.upstream.calls';
const UPSTREAM_WAIT_METRIC = 'ratelimit.upstream.wait';
const UPSTREAM_RATE_METRIC = 'ratelimit.upstream.rate';
const METER_NAME = 'nestjs-limiter';

type Attributes = Record<string, string>;
interface Instruments {
  calls: { add(value: number, attributes?: Attributes): void };
  wait: { record(value: number, attributes?: Attributes): void };
}
interface ObservableResult {
  observe(value: number, attributes?: Attributes): void;
}
interface Meter {
  createCounter(name: string, options?: object): Instruments['calls'];
  createHistogram(name: string, options?: object): Instruments['wait'];
  createObservableGauge?(
    name: string,
    options?: object,
  ): { addCallback(callback: (result: ObservableResult) => void): void };
}
interface MeterProvider {
  getMeter(name: string): Meter;
}
interface OpenTelemetryApi {
  metrics: { getMeter(name: string): Meter; getMeterProvider?(): MeterProvider };
}

/** Waits last from nothing to the upstream's timeout: buckets from 1 ms to 30 s, in seconds. */
const WAIT_BUCKETS_SECONDS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * The upstream budgets' metrics, on the meter of the decisions: `ratelimit.upstream.calls`
 * {`ratelimit.upstream`, `ratelimit.outcome`: started, busy, paused, learned}, the wait before
 * each start (`ratelimit.upstream.wait`, seconds) and the rate each budget grants now
 * (`ratelimit.upstream.rate`, calls a second). Attributes are the upstreams' names: the app's.
 */
export class UpstreamMetrics {
  private instruments?: Instruments;
  private provider?: MeterProvider;
  private readonly rates = new Map<string, number>();

  constructor(private readonly api: OpenTelemetryApi) {}

  static fromOption(option: object | false | undefined): UpstreamMetrics | undefined {
    if (option === false) return undefined;
    const api = optionalPackage<OpenTelemetryApi>('@opentelemetry/api');
    return api?.metrics ? new UpstreamMetrics(api) : undefined;
  }

  private meter(): Instruments {
    const provider = this.api.metrics.getMeterProvider?.();
    if (this.instruments && provider === this.provider) return this.instruments;
    this.provider = provider;
    const meter = this.api.metrics.getMeter(METER_NAME);
    meter
      .createObservableGauge?.(UPSTREAM_RATE_METRIC, {
        description: 'Calls a second each upstream budget grants now',
      })
      .addCallback((result) => {
        for (const [upstream, rate] of this.rates) {
          result.observe(rate, { 'ratelimit.upstream': upstream });
        }
      });
    this.instruments = {
      calls: meter.createCounter(UPSTREAM_CALLS_METRIC, {
        description: 'Upstream calls by upstream and outcome',
      }),
      wait: meter.createHistogram(UPSTREAM_WAIT_METRIC, {
        description: 'How long each upstream call waited for its slot',
        unit: 's',
        advice: { explicitBucketBoundaries: WAIT_BUCKETS_SECONDS },
      }),
    };
    return this.instruments;
  }

  private count(upstream: string, outcome: string): void {
    this.meter().calls.add(1, { 'ratelimit.upstream': upstream, 'ratelimit.outcome': outcome });
  }

  readonly started = (upstream: string, waitedMs: number): void => {
    this.count(upstream, 'started');
    this.meter().wait.record(waitedMs / 1000, { 'ratelimit.upstream': upstream });
  };
  readonly busy = (upstream: string): void => this.count(upstream, 'busy');
  readonly paused = (upstream: string): void => this.count(upstream, 'paused');
  readonly learned = (upstream: string): void => this.count(upstream, 'learned');
  readonly learnedRate = (upstream: string, rate: number): void => {
    this.rates.set(upstream, rate);
  };
}
