/**
 * A simulated downstream (a database, a service) of fixed capacity: `servers` calls served
 * at once, each taking `serviceMs`; the others wait their turn, first come first served.
 * Its capacity is servers / serviceMs calls per ms.
 */
export class Downstream {
  private busy = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly servers: number,
    public serviceMs: number,
  ) {}

  async call(): Promise<void> {
    if (this.busy >= this.servers) await new Promise<void>((turn) => this.waiting.push(turn));
    else this.busy++;
    await new Promise((done) => setTimeout(done, this.serviceMs));
    const next = this.waiting.shift();
    if (next) next();
    else this.busy--;
  }
}
