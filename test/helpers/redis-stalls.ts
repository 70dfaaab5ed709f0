import type Redis from 'ioredis';

/** How often the watch asks Redis, in ms. */
const EVERY_MS = 1;
/** Gaps shorter than this are not kept: the watch's own timer makes a few ms of them. */
const KEPT_FROM_MS = 5;

/**
 * How long Redis went without answering while a test watched: a PING every millisecond on a
 * connection of its own, and the gaps between two answers. On a machine shared by many
 * processes Redis itself waits for a core now and then, and a decision sent then is
 * unanswered for as long: a store timeout the code owes no one. The watch's own lateness
 * only lengthens and adds gaps, so it can excuse too much, never too little.
 */
export interface RedisStalls {
  /** The gaps of at least 5 ms since the last call (or the start), in ms; starts a new span. */
  take(): number[];
  stop(): Promise<void>;
}

export function watchRedisStalls(client: Redis): RedisStalls {
  let gaps: number[] = [];
  let stopped = false;
  const loop = (async () => {
    let last = performance.now();
    while (!stopped) {
      await new Promise((resolve) => setTimeout(resolve, EVERY_MS));
      await client.ping();
      const now = performance.now();
      if (now - last >= KEPT_FROM_MS) gaps.push(now - last);
      last = now;
    }
  })();
  return {
    take: () => {
      const span = gaps;
      gaps = [];
      return span;
    },
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}
