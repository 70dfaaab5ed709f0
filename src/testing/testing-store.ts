import { LimiterClock, MemoryStore } from '../stores/memory/memory.store';

/** Options of {@link createTestingStore}. @publicApi */
export interface TestingStoreOptions {
  /** The clock decisions and waits use, e.g. a `ManualClock`; default real time. */
  clock?: LimiterClock;
}

/**
 * An in-memory store for tests of your own app: give it to
 * `overrideProvider(LimiterStore).useValue(...)` and every limit runs in memory, on `clock`.
 * `clear()` (from `MemoryStore`) forgets all state, e.g. in a `beforeEach`.
 *
 * @example
 * ```ts
 * const moduleRef = await Test.createTestingModule({ imports: [AppModule] })
 *   .overrideProvider(LimiterStore)
 *   .useValue(createTestingStore({ clock: new ManualClock() }))
 *   .compile();
 * ```
 * @publicApi
 */
export function createTestingStore(options: TestingStoreOptions = {}): MemoryStore {
  return new MemoryStore({ clock: options.clock });
}
