/*
 * How the overload guard learns its concurrency limit, and why
 * ============================================================
 *
 * Little's law ties the three numbers together: requests in flight = throughput × latency.
 * Below the server's capacity, letting more requests in raises throughput and leaves
 * latency alone; past it, every extra request only waits in a queue (a pool, a downstream,
 * the event loop), and latency grows with the queue. So the limit L is raised while latency
 * stays near its baseline and lowered when it grows: the gradient baseline / latency says
 * how much of the latency is queueing.
 *
 * Samples and windows. Each request that ran gives one sample: its latency, from admission
 * to the end of its work. Samples are judged per window, never one by one: a window closes
 * once it holds at least MIN_SAMPLES samples and has lasted at least one baseline latency
 * (or after MAX_WINDOW_MS with at least MIN_SLOW_SAMPLES; fewer are dropped). Its latency
 * `rtt` is the median of its samples. An event-loop stall (a busy neighbour on a shared
 * core, a GC pause) delays every reply that was in flight at once; judged one reply at a
 * time, each late reply would cut the limit again, and a limit that halves per late reply
 * reaches its floor within one stall and refuses critical requests for seconds after it.
 * Judged per window, one stall is at most one cut.
 *
 * Once per round trip. After a cut, samples of requests admitted before it are ignored:
 * they ran under the old limit and cannot show the cut's effect. The next judged window
 * therefore starts a full round trip after the cut.
 *
 * Baseline. B starts as the fastest reply of the first window (the first requests find the
 * server idle; a window under load may be queued from its first reply to its last), then
 * is the lowest window latency since it was last learned (a min-filter, as TCP
 * Vegas and BBR keep their base RTT): it falls at once when latency does, and never creeps
 * up with the queue it is meant to detect. It is re-learned when cutting does not bring
 * latency down: within a run of cutting windows, each time the limit has fallen by
 * CUT_STEP (20 %) since the run's last checkpoint (its start, its highest latency so far,
 * or the last comparison), the latency is compared with the checkpoint's. Real queueing shrinks with the limit (latency ∝ in flight past capacity),
 * so it falls by about as much; latency that falls by less than RELEARN_DROP (10 %) is not
 * ours to cut (the downstream became slower, every request costs more): B becomes the
 * window's latency, and the limit grows back from there.
 *
 * Steps, per judged window, with g = clamp(TOLERANCE · B / rtt, 0.5, 1) (TOLERANCE 1.5: no
 * queueing is read into latency within 1.5 · B):
 *
 *   gradient2 (the default, the shape of Netflix's Gradient2):
 *     target = L · g + (g = 1 ? √L : 0)   (√L probes for more while no queueing shows)
 *     L ← (1 − S) · L + S · target  (S = 0.2: one window moves the limit by at most 10 %)
 *   aimd:
 *     rtt > TOLERANCE · B:  L ← L · 0.9
 *     otherwise:            L ← L + 1
 *
 * A limit only grows when the window saw at least half of it in use: an idle server learns
 * nothing about its capacity, and a limit grown while idle would protect nothing. L stays
 * within [minLimit, maxLimit]; the gate admits while in flight < ⌊L⌋ (overload-gate.ts).
 *
 * Example (gradient2, B = 50 ms, L = 20): a window's median is 150 ms: g = 0.5, target =
 * 10, L = 18. The downstream tripled its service time, so the next windows stay
 * near 150 ms while L falls; at L = 14.6 (20 % below the checkpoint) latency has not fallen
 * by 10 %: B = 150 ms, g = 1, and L grows by 0.2 · √L a window.
 */

/** The step rule of an adaptive limit. */
export type AdaptiveAlgorithm = 'gradient2' | 'aimd';

export interface AdaptiveLimitSettings {
  initialLimit: number;
  minLimit: number;
  maxLimit: number;
  algorithm: AdaptiveAlgorithm;
}

const MIN_SAMPLES = 20;
const MIN_SLOW_SAMPLES = 5;
const MAX_WINDOW_MS = 1000;
const TOLERANCE = 1.5;
const SMOOTHING = 0.2;
const MIN_GRADIENT = 0.5;
const AIMD_BACKOFF = 0.9;
const CUT_STEP = 0.8;
const RELEARN_DROP = 0.9;

/** What the last judged window did, for the admin page and the tests. */
export type WindowVerdict = 'grew' | 'held' | 'cut' | 'relearned';

/**
 * The limit and what it has learned. Time is passed in (milliseconds on one monotonic
 * clock), so the model is pure and the tests drive it sample by sample.
 */
export class AdaptiveLimit {
  private limitValue: number;
  private baselineMs?: number;
  private samples: number[] = [];
  private windowStartMs?: number;
  private windowPeak = 0;
  /** Samples of requests admitted before this moment ran under an older limit. */
  private cutAtMs = -Infinity;
  /** The run of cuts: the limit and latency when it started, or at its last checkpoint. */
  private checkpoint?: { limit: number; rttMs: number };

  constructor(private readonly settings: AdaptiveLimitSettings) {
    this.limitValue = settings.initialLimit;
  }

  /** The limit as the gate applies it: a whole number of requests. */
  get limit(): number {
    return Math.floor(this.limitValue);
  }

  /** The latency judged free of queueing, in ms; undefined before the first window. */
  get baseline(): number | undefined {
    return this.baselineMs;
  }

  /**
   * One finished request: admitted at `startedAtMs`, done at `nowMs`, while `inFlight`
   * requests (itself included) were running. Returns the verdict when it closed a window.
   */
  sample(startedAtMs: number, nowMs: number, inFlight: number): WindowVerdict | undefined {
    if (startedAtMs < this.cutAtMs) return undefined;
    this.windowStartMs ??= nowMs;
    this.samples.push(nowMs - startedAtMs);
    this.windowPeak = Math.max(this.windowPeak, inFlight);
    const lastedMs = nowMs - this.windowStartMs;
    const enough = this.samples.length >= MIN_SAMPLES && lastedMs >= (this.baselineMs ?? 0);
    if (!enough && lastedMs < MAX_WINDOW_MS) return undefined;
    const [samples, peak] = [this.samples, this.windowPeak];
    this.samples = [];
    this.windowPeak = 0;
    this.windowStartMs = undefined;
    if (samples.length < MIN_SLOW_SAMPLES) return undefined;
    // The first window's fastest reply: the first requests found the server idle, where
    // later windows, under load, may hold a queue from their first sample to their last.
    this.baselineMs ??= Math.min(...samples);
    return this.judge(median(samples), peak, nowMs);
  }

  private judge(rttMs: number, peak: number, nowMs: number): WindowVerdict {
    const baseline = Math.min(this.baselineMs ?? rttMs, rttMs);
    this.baselineMs = baseline;
    const before = this.limitValue;
    const wanted = this.step(before, baseline, rttMs, peak);
    this.limitValue = this.clamp(wanted);
    if (wanted >= before) {
      this.checkpoint = undefined;
      return this.limitValue > before ? 'grew' : 'held';
    }
    this.cutAtMs = nowMs;
    // Measured from the run's highest latency: while latency still rises (the downstream is
    // slowing down), no cut has had its effect yet.
    if (!this.checkpoint || rttMs > this.checkpoint.rttMs)
      this.checkpoint = { limit: before, rttMs };
    const floored = this.limitValue <= this.settings.minLimit;
    if (!floored && this.limitValue > this.checkpoint.limit * CUT_STEP) return 'cut';
    if (rttMs > this.checkpoint.rttMs * RELEARN_DROP) {
      // Cutting did not bring latency down: it is not a queue of ours.
      this.baselineMs = rttMs;
      this.checkpoint = undefined;
      return 'relearned';
    }
    this.checkpoint = { limit: this.limitValue, rttMs };
    return 'cut';
  }

  private step(limit: number, baseline: number, rttMs: number, peak: number): number {
    const mayGrow = peak * 2 >= limit;
    if (this.settings.algorithm === 'aimd') {
      if (rttMs > TOLERANCE * baseline) return limit * AIMD_BACKOFF;
      return mayGrow ? limit + 1 : limit;
    }
    const gradient = Math.max(MIN_GRADIENT, Math.min(1, (TOLERANCE * baseline) / rttMs));
    // The probe (√L) only while no queueing shows: with it always added, the limit could
    // not fall below 4 however late the replies (0.9 · L + 0.2 · √L >= L there).
    const target = limit * gradient + (gradient === 1 ? Math.sqrt(limit) : 0);
    const next = (1 - SMOOTHING) * limit + SMOOTHING * target;
    return next > limit && !mayGrow ? limit : next;
  }

  private clamp(limit: number): number {
    return Math.min(this.settings.maxLimit, Math.max(this.settings.minLimit, limit));
  }
}

function median(values: number[]): number {
  const sorted = values.sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}
