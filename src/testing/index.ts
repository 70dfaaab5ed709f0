// `nestjs-limiter/testing`: what users need to test their own apps (DESIGN §10).
export { ManualClock } from './manual-clock';
export { createTestingStore } from './testing-store';
export type { TestingStoreOptions } from './testing-store';
export type { LimiterClock } from '../stores/memory.store';
