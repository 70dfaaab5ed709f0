import { SlotBook } from './slot-book';
import { SlotAnswer, SlotAsk } from './upstream-slots.model';

/**
 * The upstream's budget as this server sees it: the shared book of starts (a token bucket
 * and a fair queue beside it, upstream-slots.model.ts) on one key every server shares, at
 * the rate the fleet last learned. A pause is the book's, which the same script call that
 * books a slot checks; what the upstream says is left caps what the bucket holds.
 */
export class UpstreamBucket {
  private rate: number;

  constructor(
    private readonly book: SlotBook,
    readonly key: string,
    private readonly capacity: number,
    readonly server: string,
    configuredRate: number,
  ) {
    this.rate = configuredRate;
  }

  get currentRate(): number {
    return this.rate;
  }

  /** Later bookings spend the bucket at this rate. */
  setRate(rate: number): void {
    this.rate = rate;
  }

  private get bucket() {
    return { rate: this.rate, capacity: this.capacity };
  }

  /** Books the starts of the calls waiting here, every tenant's in one script call. */
  take(asks: SlotAsk[]): Promise<SlotAnswer> {
    return this.book.take(this.key, { ...this.bucket, server: this.server, asks });
  }

  /** Gives back a slot booked and not used. */
  giveBack(cost: number): Promise<void> {
    return this.book.giveBack(this.key, cost, this.bucket);
  }

  /** Stops every server's starts for `ms`. */
  pause(ms: number): Promise<void> {
    return this.book.pause(this.key, ms * 1000);
  }

  /** The bucket holds no more than `left` slots: what the upstream says is left. */
  capAt(left: number): Promise<void> {
    return this.book.capAt(this.key, left, this.bucket);
  }
}
