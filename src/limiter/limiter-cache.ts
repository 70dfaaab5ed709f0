import { LRUCache } from 'lru-cache';
import type { LimiterCacheOptions } from '../rate-limiter.options';
import { sameValues } from './limiter-plans';

/** Up to this many configurations are kept for one key; more are rebuilt on each call. */
const MAX_CONFIGURATIONS_PER_KEY = 8;

interface Configuration {
  values: readonly unknown[];
  instance: object;
}

/**
 * Limiter instances of one algorithm by key, each remembered with the raw option values it
 * was made from, so two configurations on one key never share an instance (a cache keyed
 * by the key alone would hand one config's limiter to the other). A hit costs one lookup
 * and a few `===`: no signature string is built on the hot path (number-to-string
 * conversions included).
 */
export class LimiterCache {
  private readonly byKey: LRUCache<string, Configuration[]>;

  constructor(options: LimiterCacheOptions = {}) {
    this.byKey = new LRUCache<string, Configuration[]>({
      max: options.max ?? 10_000,
      ...(options.ttl ? { ttl: options.ttl, updateAgeOnGet: true } : {}),
    });
  }

  /** The instance made for `key` from these option values, created by `create` on a miss. */
  getOrCreate<T extends object>(
    key: string,
    options: Readonly<Record<string, unknown>>,
    optionNames: readonly string[],
    create: () => T,
  ): T {
    let configurations = this.byKey.get(key);
    if (configurations) {
      for (const configuration of configurations) {
        if (sameValues(configuration.values, options, optionNames)) {
          return configuration.instance as T;
        }
      }
    } else {
      configurations = [];
      this.byKey.set(key, configurations);
    }
    const instance = create();
    if (configurations.length < MAX_CONFIGURATIONS_PER_KEY) {
      configurations.push({ values: optionNames.map((name) => options[name]), instance });
    }
    return instance;
  }
}
