import { optionalPackage } from '../optional-package';
import type { OverloadPriority } from '../overload/overload.options';
import type { OverloadSnapshot } from '../overload/overload-gate';

const OVERLOAD_LIMIT_METRIC = 'ratelimit.overload.limit';
const OVERLOAD_IN_FLIGHT_METRIC = 'ratelimit.overload.in_flight';
const OVERLOAD_REFUSED_METRIC = 'ratelimit.overload.refused';
const METER_NAME = 'nestjs-limiter';

// The little of @opentelemetry/api used here, typed locally (as decision-metrics.ts does).
type Attributes = Record<string, string>;
interface ObservableResult {
  observe(value: number, attributes?: Attributes): void;
}
interface Observable {
  addCallback(callback: (result: ObservableResult) => void): void;
}
interface Meter {
  createCounter(name: string, options?: object): { add(value: number, a?: Attributes): void };
  createObservableGauge(name: string, options?: object): Observable;
}
interface OpenTelemetryApi {
  metrics: { getMeter(name: string): Meter; getMeterProvider?(): unknown };
}

/**
 * The overload guard's metrics, through the global meter provider: gauges
 * `ratelimit.overload.limit` and `ratelimit.overload.in_flight`, and the counter
 * `ratelimit.overload.refused` {`ratelimit.priority`}, each by `ratelimit.limit` (the
 * gate: `overload` for the module's, else the class or `Cls.method` it stands on). The
 * instruments follow the global provider: one registered after start-up is used from its
 * first refusal or first reading on.
 */
export class OverloadMetrics {
  private provider?: unknown;
  private refusals?: { add(value: number, a?: Attributes): void };

  constructor(
    private readonly api: OpenTelemetryApi,
    private readonly gates: () => OverloadSnapshot[],
  ) {}

  /** None with `metrics: false` or without the API installed. */
  static fromOption(option: unknown, gates: () => OverloadSnapshot[]): OverloadMetrics | undefined {
    if (option === false) return undefined;
    const api = optionalPackage<OpenTelemetryApi>('@opentelemetry/api');
    return api?.metrics ? new OverloadMetrics(api, gates) : undefined;
  }

  refused(gate: string, priority: OverloadPriority): void {
    this.follow();
    this.refusals?.add(1, { 'ratelimit.limit': gate, 'ratelimit.priority': priority });
  }

  /** Makes the instruments again when the global provider changed (start-up, a test's SDK). */
  follow(): void {
    const provider = this.api.metrics.getMeterProvider?.() ?? this.api.metrics;
    if (provider === this.provider) return;
    this.provider = provider;
    const meter = this.api.metrics.getMeter(METER_NAME);
    this.refusals = meter.createCounter(OVERLOAD_REFUSED_METRIC, {
      description: 'Requests the overload guard refused, by gate and priority',
    });
    const gauge = (name: string, description: string, read: (g: OverloadSnapshot) => number) =>
      meter.createObservableGauge(name, { description }).addCallback((result) => {
        for (const gate of this.gates())
          result.observe(read(gate), { 'ratelimit.limit': gate.name });
      });
    gauge(
      OVERLOAD_LIMIT_METRIC,
      'The concurrency limit the overload guard learned',
      (g) => g.limit,
    );
    gauge(
      OVERLOAD_IN_FLIGHT_METRIC,
      'Requests in flight under the overload guard',
      (g) => g.inFlight,
    );
  }
}
