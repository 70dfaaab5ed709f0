import { LRUCache } from 'lru-cache';

/** @publicApi */
export interface LimiterCacheOptions {
  /** Most limiter instances kept, default 10_000. */
  max?: number;
  /** Milliseconds an unused instance is kept, default 300_000. */
  ttl?: number;
}

/**
 * Limiter instances by algorithm + normalised options + key, so two configurations on one
 * key never share an instance (a cache keyed by the key alone would hand one config's
 * limiter to the other).
 */
export class LimiterCache {
  private readonly instances: LRUCache<string, object>;

  constructor(options: LimiterCacheOptions = {}) {
    this.instances = new LRUCache<string, object>({
      max: options.max ?? 10_000,
      ttl: options.ttl ?? 300_000,
      updateAgeOnGet: true,
    });
  }

  getOrCreate<T extends object>(
    algorithm: string,
    params: object,
    key: string,
    create: () => T,
  ): T {
    const cacheKey = `${algorithm}\u0000${stableStringify(params)}\u0000${key}`;
    let instance = this.instances.get(cacheKey) as T | undefined;
    if (!instance) {
      instance = create();
      this.instances.set(cacheKey, instance);
    }
    return instance;
  }

  get size(): number {
    return this.instances.size;
  }
}

function stableStringify(value: object): string {
  const record = value as Record<string, unknown>;
  return Object.keys(record)
    .sort()
    .map((name) => `${name}=${String(record[name])}`)
    .join(',');
}
