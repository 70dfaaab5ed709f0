import { Controller, Get } from '@nestjs/common';
import { ConcurrencyLimit, RateLimit } from '../../src';
import { useAppOnRedis } from '../helpers/app-on-redis';
import { hangUp, pause } from '../helpers/hang-up';
import { call, PLATFORMS } from '../helpers/http';

let runs = 0;

@Controller()
class QueueController {
  // One permit every 500 ms; callers queue up to 10 s for theirs.
  @Get('queued')
  @RateLimit({ key: 'queued', rate: 2, burst: 0.5, timeout: 10 })
  @ConcurrencyLimit({ key: 'queued', max: 10 })
  queued() {
    runs++;
    return 'ok';
  }
}

describe.each(PLATFORMS)('a client that leaves while its request waits, on %s', (platform) => {
  const env = useAppOnRedis([QueueController], platform);

  it('runs no handler and gives its slot to the next request at once', async () => {
    runs = 0;
    expect((await call(env.port, { path: '/queued' })).status).toBe(200);
    // Five clients queue for the slots at 0.5, 1, 1.5, 2 and 2.5 s, and leave after 50 ms.
    await Promise.all(Array.from({ length: 5 }, () => hangUp(env.port, '/queued', 50)));
    await pause(20);
    // Their concurrency slots went back when they left, though their waits had not ended.
    expect(await env.admin.zcard('concurrency:queued')).toBe(0);
    // Their reservations went back too: this request waits for the 0.5 s slot, not the 3 s one.
    const next = await call(env.port, { path: '/queued' });
    expect(next.status).toBe(200);
    expect(next.elapsedMs).toBeLessThan(1000);
    await pause(3000 - next.elapsedMs);
    expect(runs).toBe(2);
  });
});
