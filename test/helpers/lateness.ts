import { monitorEventLoopDelay } from 'node:perf_hooks';

/** How often the watch samples, in ms: also the least delay it can see. */
const RESOLUTION_MS = 10;

/**
 * How late this process's timers ran while a test watched. On a busy machine the process
 * waits for a core, and no timer (a store timeout, a token-bucket wait) fires before it runs
 * again. A test's bound on wall time is therefore what the code guarantees plus this
 * lateness: load can slow such a test but not fail it, while a request that really waited
 * (for a frozen Redis, say) still does, because waiting leaves the event loop idle and on
 * time.
 */
export interface Lateness {
  /** The longest any timer ran late since the watch began, in ms. */
  maxMs(): number;
  /**
   * The longest one stretch of work may have held the loop (one turn), or any timer run
   * late, in ms: `maxMs()` and the watch's resolution. The watch's own timer is due only
   * every RESOLUTION_MS, so a stretch that starts just after it fired shows that much short.
   */
  turnMs(): number;
  stop(): void;
}

export function watchLateness(): Lateness {
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  const maxMs = () => Math.max(0, histogram.max / 1e6 - RESOLUTION_MS);
  return {
    maxMs,
    turnMs: () => maxMs() + RESOLUTION_MS,
    stop: () => histogram.disable(),
  };
}
