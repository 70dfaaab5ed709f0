import { ChildApp, startChildApp } from '../helpers/child-app';
import { call } from '../helpers/http';
import { openLoop, summarize } from '../helpers/overload-load';

// K = 10 downstream calls at once, S = 20 ms each: capacity C = 500 requests per second.
const [SERVERS, SERVICE_MS, CAPACITY] = [10, 20, 500];

describe('the overload guard under an open-loop load of 4× capacity (app and load in processes of their own)', () => {
  let app: ChildApp;
  beforeAll(async () => {
    app = await startChildApp('overload-app.ts', {
      SERVERS: String(SERVERS),
      SERVICE_MS: String(SERVICE_MS),
    }, 90_000);
  }, 100_000);
  afterAll(() => app?.stop());

  it('sheds sheddable requests, serves the critical ones, keeps the downstream busy, and passes at once after', async () => {
    const samples = await openLoop({
      url: `http://127.0.0.1:${app.port}/adaptive`,
      rate: 4 * CAPACITY,
      seconds: 8,
    });
    // Past the first 2 s, in which the limit is learned.
    const loaded = summarize(samples, 2, 8);
    // Margins for a shared 2-core machine: the model's exact behaviour is the unit tests'.
    expect(loaded.criticalSuccess).toBeGreaterThanOrEqual(0.95);
    expect(loaded.refused.sheddable).toBeGreaterThan(loaded.refused.critical * 10);
    expect(loaded.goodputPerSecond).toBeGreaterThanOrEqual(0.6 * CAPACITY);
    // After the load: requests pass at once, the limit not stuck low.
    const after = [];
    for (let i = 0; i < 20; i++) after.push((await call(app.port, { path: '/adaptive' })).status);
    expect(after).toEqual(Array(20).fill(200));
  }, 60_000);
});
