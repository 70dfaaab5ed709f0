import { coalesced } from '../../../../../src/stores/redis/engine/coalescing';
import { callArgs, startWaits, written } from '../../../../../src/stores/redis/engine/deadlines';
import type { EngineEntry, FixedFields } from '../../../../../src/stores/redis/engine/entry';
import { waitsUntil } from '../../../../../src/stores/redis/engine/entry';
import { RedisClock } from '../../../../../src/stores/redis/engine/redis-clock';

const limit: FixedFields = { argv: ['0', '5', '60000'], limitId: 'count 5', coalescedIndex: '40' };
/** Redis's clock is 1,000 s ahead of the app's: one sample, read at once. */
const OFFSET_MS = 1_000_000;

/**
 * A decision whose caller waits `patienceMs` after each send, as the failure policy does: it
 * answers each send with the moment it now stops waiting, and records the sends.
 */
function decision(key: string, patienceMs: number, storePatienceMs = patienceMs) {
  const sends: number[] = [];
  const made: EngineEntry = {
    key,
    algorithmIndex: '1',
    time: '',
    fixed: limit,
    requestArgv: [],
    packedArgv: '3\u00000\u00005\u000060000\u0000',
    // What the store measured when the decision reached it: less, after a pause.
    patienceMs: storePatienceMs,
    sent(atMs) {
      sends.push(atMs);
      made.untilMs = atMs + patienceMs;
      return true;
    },
    settle: () => undefined,
    withdraw: () => undefined,
    fail: () => undefined,
  };
  return { made, sends };
}

function clockAt(nowMs: number): RedisClock {
  const clock = new RedisClock(() => nowMs);
  clock.sample((OFFSET_MS + nowMs) * 1000, nowMs);
  return clock;
}

/** The deadline of a call's args, back in the app's clock. */
const deadlineOf = (args: string[], keys: number) => Number(args[1 + keys]) / 1000 - OFFSET_MS;

describe("an engine call's deadline", () => {
  it("is the caller's own, from the send, whatever the store measured before it", () => {
    // The app paused 60 ms between the caller's clock reading and the store: 50 - 60.
    const late = decision('k', 50, -10);
    const [sent] = startWaits([late.made], 1000, -Infinity);
    expect(deadlineOf(callArgs([sent], clockAt(1000)), 1)).toBe(1050);
    // Without the caller's word, the store's own measure from the wait's start.
    const bare = { ...decision('j', 50, -10).made, sent: undefined, untilMs: undefined };
    expect(waitsUntil(startWaits([bare], 1000, -Infinity)[0], 1000)).toBe(990);
  });

  it("is the earliest caller's, a coalesced entry's included", () => {
    const [a, b, c] = [decision('k', 50), decision('k', 30), decision('j', 80)];
    const entries = coalesced(startWaits([a.made, b.made, c.made], 2000, -Infinity));
    expect(entries.map((entry) => entry.width ?? 1)).toEqual([2, 1]);
    expect(deadlineOf(callArgs(entries, clockAt(2000)), 2)).toBe(2030);
  });

  it('starts every caller’s wait again at the write, a coalesced entry’s members each', () => {
    const [a, b] = [decision('k', 50), decision('k', 50)];
    const entries = coalesced(startWaits([a.made, b.made], 3000, -Infinity));
    written(entries, 3012);
    expect([a.sends, b.sends, a.made.untilMs]).toEqual([[3000, 3012], [3000, 3012], 3062]);
  });

  it('starts it again at the first write only: a call sent again keeps the wait it had', () => {
    const a = decision('k', 50);
    const [sent] = startWaits([a.made], 4000, -Infinity);
    written([sent], 4003);
    // The same call sent again (per slot after a refusal, the library reloaded).
    written([sent], 4150);
    expect([a.sends, a.made.untilMs]).toEqual([[4000, 4003], 4053]);
  });

  it('never starts again the wait of a decision held behind a silent Redis', () => {
    const a = decision('k', 50);
    a.made.heldAtMs = 5000;
    // The calls it waited for ended 40 ms later without an answer (lastReplyAtMs before).
    const [sent] = startWaits([a.made], 5040, 4990);
    written([sent], 5041);
    expect([a.sends, a.made.untilMs]).toEqual([[5000], 5050]);
  });
});
