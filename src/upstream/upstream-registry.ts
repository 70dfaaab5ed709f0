import { DecisionSource } from '../algorithms/decision-source';
import { LimiterConfigError } from '../errors/limiter-config.error';
import { customKeyPart } from '../keys/key-builder';
import { SharedLearning } from './shared-learning';
import { Upstream } from './upstream';
import { UpstreamBucket } from './upstream-bucket';
import { UpstreamEvents } from './upstream-events';
import { UpstreamLearner } from './upstream-learner';
import { sameSettings, UpstreamOptions, upstreamSettings } from './upstream.options';

/** The prefix of every upstream's keys: its bucket, and its shared record beside it. */
export const UPSTREAM_PREFIX = 'upstream:';

/**
 * The app's upstreams by name: declared once (module options or in code), then the same
 * instance for every caller. Declaring a name again with other options is a mistake.
 */
export class UpstreamRegistry {
  private readonly byName = new Map<string, Upstream>();

  constructor(
    private readonly source: DecisionSource,
    private readonly shared: SharedLearning,
    private readonly keyPrefix = '',
    private readonly events: UpstreamEvents = {},
  ) {}

  declare(options: UpstreamOptions): Upstream {
    const settings = upstreamSettings(options);
    const known = this.byName.get(settings.name);
    if (known) {
      if (sameSettings(known.settings, settings)) return known;
      throw new LimiterConfigError(
        `upstream '${settings.name}': declared again with other options; one name is one ` +
          `budget (rate ${known.settings.rate}, capacity ${known.settings.capacity}, timeout ` +
          `${known.settings.timeoutMs} ms, learn ${known.settings.learn})`,
      );
    }
    const key = this.keyPrefix + UPSTREAM_PREFIX + customKeyPart(settings.name, 'upstream');
    const where = `upstream '${settings.name}'`;
    const bucket = new UpstreamBucket(this.source, key, settings.capacity, where, settings.rate);
    const upstream = new Upstream(settings, bucket, this.events);
    // `~` never ends an escaped name: the record's key is no other upstream's.
    upstream.learner = new UpstreamLearner(
      `${key}~learned`,
      this.shared,
      {
        configuredRate: settings.rate,
        backlogged: () => upstream.backlogged(),
        pause: (ms) => upstream.pauseFor(ms),
        capAt: (left) => bucket.capAt(left),
        budget: (budget, backlogged) => upstream.applyBudget(budget, backlogged),
        active: () => upstream.status().waiting > 0,
        learned: () => this.events.learned?.(settings.name),
      },
      settings.learn,
    );
    this.byName.set(settings.name, upstream);
    return upstream;
  }

  get(name: string): Upstream {
    const found = this.byName.get(name);
    if (!found) {
      const known = [...this.byName.keys()];
      throw new LimiterConfigError(
        `upstream '${name}' is not declared; declare it in forRoot({ upstreams }) or with ` +
          `factory.upstream({ name, rate })` +
          (known.length ? `; the upstreams are ${known.join(', ')}` : ''),
      );
    }
    return found;
  }

  list(): Upstream[] {
    return [...this.byName.values()];
  }

  close(): void {
    for (const upstream of this.byName.values()) upstream.close();
  }
}
