import { Decision } from '../contracts/decision';
import { DecisionSource } from '../algorithms/decision-source';
import { RateLimiter, rateLimitDefinition } from '../algorithms/rate-limit/rate-limit.definition';
import { rateLimitKind } from '../algorithms/rate-limit/rate-limit.definition';

/**
 * The upstream's budget: one token bucket (the algorithm of `@RateLimit`, reserve/wait) on
 * one key every server shares, at the rate the fleet last learned. A pause is the bucket's
 * block, which the same script call that takes a slot checks; what the upstream says is
 * left caps what the bucket holds.
 */
export class UpstreamBucket {
  private limiter: RateLimiter;
  private rate: number;

  constructor(
    private readonly source: DecisionSource,
    readonly key: string,
    private readonly capacity: number,
    private readonly where: string,
    configuredRate: number,
  ) {
    this.rate = configuredRate;
    this.limiter = this.limiterAt(configuredRate);
  }

  private limiterAt(rate: number): RateLimiter {
    const capacity = this.capacity;
    return rateLimitKind.createLimiter(this.source, this.key, { rate, capacity }, this.where);
  }

  get currentRate(): number {
    return this.rate;
  }

  /** Later decisions spend the bucket at this rate (its saved-up moment stays as it is). */
  setRate(rate: number): void {
    if (rate === this.rate) return;
    this.rate = rate;
    this.limiter = this.limiterAt(rate);
  }

  /** Reserves `cost` slots if they exist within `timeoutMs`; a denial reserves nothing. */
  take(cost: number, timeoutMs: number): Promise<Decision> {
    return this.limiter.decide(cost, timeoutMs / 1000);
  }

  /** Gives back a slot reserved and not used. */
  giveBack(cost: number): Promise<void> {
    return this.limiter.refund(cost);
  }

  /** Stops every server's starts for `ms`. */
  pause(ms: number): Promise<void> {
    return this.limiter.block(Math.max(0.001, ms / 1000));
  }

  /** The bucket holds no more than `left` slots: what the upstream says is left. */
  async capAt(left: number): Promise<void> {
    const state = await this.limiter.peek();
    const excess = state.remaining - left;
    if (excess < 1) return;
    await this.source.evaluate({
      algorithm: rateLimitDefinition.ops.charge!,
      key: this.key,
      params: this.limiter.params,
      request: { permits: Math.floor(excess) },
    });
  }
}

/** Whether a denial is the bucket's block (a pause): its retry is the block's end, as is its reset. */
export const isPause = (decision: Decision): boolean =>
  !decision.allowed && decision.retryAfterMs > 0 && decision.resetMs === decision.retryAfterMs;
