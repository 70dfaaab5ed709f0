// `nestjs-limiter/testing`: what users need to test their own apps (docs/design.md#testing).
export { ManualClock } from './manual-clock';
export { createTestingStore } from './testing-store';
export type { TestingStoreOptions } from './testing-store';
export type { LimiterClock } from '../stores/memory/memory.store';
export { limiterStoreConformance } from './store-conformance';
export type { LimiterStoreCheck, LimiterStoreConformanceOptions } from './store-conformance';
