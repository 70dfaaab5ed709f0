import { SlotRelease, SlotRenewal } from '../request/request-ledger';

/** What a connection's `@ConcurrencyLimit`s took: the give-back, and the renewal of their leases. */
export interface HeldSlots {
  release: SlotRelease;
  renewal?: SlotRenewal;
}

/** Node runs a longer timer at once: a renewal is never further apart than this. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

/**
 * Holds a connection's slots while its socket is open. A slot's lease exists for the holder
 * that dies without a word (an app process killed): it must not end the slot of a socket
 * that is still open, so the slots are renewed every third of their lease (two renewals in
 * a row may fail or run late and the slot holds), and a process that dies leaves them to
 * expire one lease after its last renewal. `lost` runs when the store refuses a renewal:
 * the slot went to another socket (its lease ended while the store was out of reach) or the
 * key is blocked, and the socket must close, so no more are open than the limit allows.
 */
export class ConnectionSlots {
  private readonly timer?: NodeJS.Timeout;
  private renewing?: Promise<void>;
  private closed = false;

  constructor(
    private readonly slots: HeldSlots,
    private readonly lost: () => void,
  ) {
    const everyMs = slots.renewal?.everyMs ?? Infinity;
    if (!Number.isFinite(everyMs)) return;
    this.timer = setInterval(() => this.renew(), Math.max(1, Math.min(everyMs, LONGEST_TIMER_MS)));
    // Renewals never keep the process alive: the open socket does, while it is open.
    this.timer.unref();
  }

  /**
   * The socket closed: its slots go back, after a renewal in flight (which, landing after
   * the release, would take the slot again for nobody).
   */
  close(): void {
    if (this.closed) return;
    this.stopRenewing();
    this.closed = true;
    void (this.renewing ?? Promise.resolve()).then(() => this.slots.release());
  }

  /** The app shuts down: no more renewals; the slots still go back as their sockets close. */
  stopRenewing(): void {
    clearInterval(this.timer);
  }

  private renew(): void {
    // One at a time: a renewal that waits for the store is not joined by the next.
    if (this.renewing || this.closed) return;
    this.renewing = this.slots.renewal!.renew().then(
      (kept) => {
        this.renewing = undefined;
        if (kept || this.closed) return;
        this.stopRenewing();
        this.lost();
      },
      () => {
        // The store's policy layer answers failures itself; the next renewal tries again.
        this.renewing = undefined;
      },
    );
  }
}
