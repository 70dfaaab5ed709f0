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

  /** The instance made for `key` from these option values, if one is kept. */
  find<T extends object>(
    key: string,
    options: Readonly<Record<string, unknown>>,
    optionNames: readonly string[],
  ): T | undefined {
    const configurations = this.byKey.get(key);
    if (configurations === undefined) return undefined;
    for (let i = 0; i < configurations.length; i++) {
      if (sameValues(configurations[i].values, options, optionNames)) {
        return configurations[i].instance as T;
      }
    }
    return undefined;
  }

  /** Keeps `instance`, made for `key` from these option values (none of which {@link find} had). */
  add(
    key: string,
    options: Readonly<Record<string, unknown>>,
    optionNames: readonly string[],
    instance: object,
  ): void {
    let configurations = this.byKey.get(key);
    if (!configurations) {
      configurations = [];
      this.byKey.set(key, configurations);
    }
    if (configurations.length < MAX_CONFIGURATIONS_PER_KEY) {
      configurations.push({ values: optionNames.map((name) => options[name]), instance });
    }
  }
}
