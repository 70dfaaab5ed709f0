import { handlerOf, RateLimitEvent } from '../contracts/rate-limit-event';
import { optionalPackage } from '../optional-package';

/**
 * `metrics` of `RateLimiterModule.forRoot`: OpenTelemetry metrics, on by default when
 * `@opentelemetry/api` is installed.
 *
 * @publicApi
 */
export interface MetricsOptions {
  /**
   * An allowed decision that leaves fewer than this share of the limit (0 to 1, default 0.1)
   * is also counted with outcome `near-limit`.
   */
  nearLimit?: number;
}

const DEFAULT_NEAR_LIMIT = 0.1;

/** The instrument name of the decision counter and of the engine-call histogram. */
const DECISIONS_METRIC = 'ratelimit.decisions';
const STORE_DURATION_METRIC = 'ratelimit.store.duration';
const METER_NAME = 'nestjs-limiter';

// The little of @opentelemetry/api used here, typed locally: the published types then name
// no package the user may not have installed.
type Attributes = Record<string, string>;
interface Counter {
  add(value: number, attributes?: Attributes): void;
}
interface Histogram {
  record(value: number, attributes?: Attributes): void;
}
interface Meter {
  createCounter(name: string, options?: object): Counter;
  createHistogram(name: string, options?: object): Histogram;
}
interface MeterProvider {
  getMeter(name: string): Meter;
}
interface OpenTelemetryApi {
  metrics: { getMeter(name: string): Meter; getMeterProvider?(): MeterProvider };
  createNoopMeter?(): Meter;
}

/** Engine calls take about a millisecond: buckets from 0.25 ms to 1 s, in seconds. */
const DURATION_BUCKETS_SECONDS = [
  0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
];

/**
 * Records every decision as `ratelimit.decisions` {`ratelimit.limit`, `ratelimit.outcome`,
 * `ratelimit.handler`} and every engine call's duration as `ratelimit.store.duration`,
 * through the global meter provider. Attributes are the limit's name, the handler
 * (`Cls.method`, so each handler's `short` is a series of its own; absent for a programmatic
 * limiter) and the outcome, all bounded by the app's code: never a key, an IP or a user id
 * (one series per client would swamp the metrics backend and leak who called).
 */
export class DecisionMetrics {
  private instruments?: { decisions: Counter; storeDuration: Histogram };
  /** The global provider last seen, and whether it is the API's no-op one. */
  private provider?: MeterProvider;
  private providerIsNoop = false;

  constructor(
    private readonly api: OpenTelemetryApi,
    private readonly nearLimitShare: number,
  ) {}

  /** The metrics the options ask for: none with `metrics: false` or without the API installed. */
  static fromOption(option: MetricsOptions | false | undefined): DecisionMetrics | undefined {
    if (option === false) return undefined;
    const api = optionalPackage<OpenTelemetryApi>('@opentelemetry/api');
    if (!api?.metrics) return undefined;
    return new DecisionMetrics(api, option?.nearLimit ?? DEFAULT_NEAR_LIMIT);
  }

  readonly record = (event: RateLimitEvent): void => {
    if (this.idle) return;
    const { decisions } = this.meter();
    const attributes: Attributes = {
      'ratelimit.limit': event.name ?? event.limit,
      'ratelimit.outcome': event.outcome,
    };
    const handler = handlerOf(event.limit);
    if (handler !== undefined) attributes['ratelimit.handler'] = handler;
    decisions.add(1, attributes);
    const decision = event.decision;
    if (
      event.outcome === 'allowed' &&
      decision &&
      decision.remaining < this.nearLimitShare * decision.limit
    ) {
      decisions.add(1, { ...attributes, 'ratelimit.outcome': 'near-limit' });
    }
  };

  /**
   * True while the global meter provider is the API's no-op one (no SDK registered): a
   * decision would be recorded nowhere, so its event need not be built. Asked per decision,
   * so a provider registered later is seen at once, and its instruments made then.
   */
  get idle(): boolean {
    this.followProvider();
    return this.providerIsNoop;
  }

  /** Drops the instruments of a provider that is no longer the global one. */
  private followProvider(): void {
    const provider = this.api.metrics.getMeterProvider?.();
    if (!provider || provider === this.provider) return;
    this.provider = provider;
    this.instruments = undefined;
    const noop = this.api.createNoopMeter?.();
    this.providerIsNoop = noop !== undefined && provider.getMeter(METER_NAME) === noop;
  }

  /** The engine-call observer a RedisStore is given (RedisStore.observeEngineCalls). */
  readonly recordStoreCall = (durationMs: number): void => {
    this.meter().storeDuration.record(durationMs / 1000);
  };

  /**
   * The instruments of the current global provider, made on its first use rather than at
   * start-up: an SDK started after the module was built still receives every data point.
   */
  private meter() {
    this.followProvider();
    if (!this.instruments) {
      const meter = this.api.metrics.getMeter(METER_NAME);
      this.instruments = {
        decisions: meter.createCounter(DECISIONS_METRIC, {
          description: 'Rate-limit decisions, by limit name, handler and outcome',
        }),
        storeDuration: meter.createHistogram(STORE_DURATION_METRIC, {
          description: 'Duration of each call of the rate-limit engine script in Redis',
          unit: 's',
          advice: { explicitBucketBoundaries: DURATION_BUCKETS_SECONDS },
        }),
      };
    }
    return this.instruments;
  }
}
