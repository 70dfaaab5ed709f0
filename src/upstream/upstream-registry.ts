import { randomUUID } from 'node:crypto';
import { LimiterConfigError } from '../errors/limiter-config.error';
import { customKeyPart } from '../keys/key-builder';
import { SharedLearning } from './shared-learning';
import { SlotBook } from './slot-book';
import { Upstream } from './upstream';
import { UpstreamBucket } from './upstream-bucket';
import { UpstreamEvents } from './upstream-events';
import { UpstreamLearner } from './upstream-learner';
import { sameSettings, UpstreamOptions, upstreamSettings } from './upstream.options';

/** The prefix of every upstream's keys: its book of starts, and its shared record beside it. */
const UPSTREAM_PREFIX = 'upstream:';

/**
 * The app's upstreams by name: declared once (module options or in code), then the same
 * instance for every caller. Declaring a name again with other options is a mistake.
 */
export class UpstreamRegistry {
  private readonly byName = new Map<string, Upstream>();

  constructor(
    private readonly book: SlotBook,
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
    // `~` never ends an escaped name: the book's and the record's keys are no other upstream's.
    const server = randomUUID();
    const { capacity, rate } = settings;
    const bucket = new UpstreamBucket(this.book, `${key}~slots`, capacity, server, rate);
    const upstream = new Upstream(settings, bucket, this.events);
    upstream.learner = new UpstreamLearner(
      `${key}~learned`,
      this.shared,
      {
        configuredRate: settings.rate,
        pause: (ms) => upstream.pauseFor(ms),
        capAt: (left) => bucket.capAt(left),
        budget: (budget) => upstream.applyBudget(budget),
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
