import { LRUCache } from 'lru-cache';

/** @publicApi */
export interface LimiterCacheOptions {
  /** Most limiter instances kept, default 10_000. */
  max?: number;
  /** Milliseconds an unused instance is kept, default 300_000. */
  ttl?: number;
}

/**
 * Limiter instances by a signature of algorithm, options and key (the factory builds it),
 * so two configurations on one key never share an instance: a cache keyed by the key alone
 * would hand one config's limiter to the other.
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

  /** The instance cached under `signature`, created by `create` on a miss. */
  getOrCreate<T extends object>(signature: string, create: () => T): T {
    let instance = this.instances.get(signature) as T | undefined;
    if (!instance) {
      instance = create();
      this.instances.set(signature, instance);
    }
    return instance;
  }

  get size(): number {
    return this.instances.size;
  }
}
