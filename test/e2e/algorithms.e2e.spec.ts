import { request as httpRequest } from 'node:http';
import { Controller, Get, Query } from '@nestjs/common';
import { ConcurrencyLimit, LeakyBucketLimit, SlidingWindowLimit } from '../../src';
import { useAppOnRedis } from '../helpers/app-on-redis';
import { eventually } from '../helpers/eventually';
import { call, PLATFORMS } from '../helpers/http';

const SLOW_MS = 300;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

@Controller()
class AlgorithmsController {
  @Get('slow')
  @ConcurrencyLimit({ key: 'slow', max: 2 })
  async slow(@Query('fail') fail?: string) {
    await pause(SLOW_MS);
    if (fail) throw new Error('handler failed');
    return 'done';
  }

  @Get('window')
  @SlidingWindowLimit({ limit: 5, window: 1 })
  window() {
    return 'ok';
  }

  @Get('leaky')
  @LeakyBucketLimit({ capacity: 3, rate: 1 })
  leaky() {
    return 'ok';
  }
}

describe.each(PLATFORMS)(
  'sliding window, concurrency and leaky bucket through the guard on %s',
  (platform) => {
    const env = useAppOnRedis([AlgorithmsController], platform);
    const inFlight = () => env.admin.zcard('concurrency:slow');

    it('concurrency: 3 simultaneous on max 2 give 2x200 and 1x429; a new one then gets 200', async () => {
      const replies = await Promise.all([0, 1, 2].map(() => call(env.port, { path: '/slow' })));
      expect(replies.map((reply) => reply.status).sort()).toEqual([200, 200, 429]);
      expect(await inFlight()).toBe(0);
      expect((await call(env.port, { path: '/slow' })).status).toBe(200);
      expect(await inFlight()).toBe(0);
    });

    it('concurrency: a handler that throws gives its slot back', async () => {
      const replies = await Promise.all([
        call(env.port, { path: '/slow?fail=1' }),
        call(env.port, { path: '/slow?fail=1' }),
      ]);
      expect(replies.map((reply) => reply.status)).toEqual([500, 500]);
      expect(await inFlight()).toBe(0);
      const after = await Promise.all([
        call(env.port, { path: '/slow' }),
        call(env.port, { path: '/slow' }),
      ]);
      expect(after.map((reply) => reply.status)).toEqual([200, 200]);
    });

    it('concurrency: a client that disconnects keeps its slot until its handler settles', async () => {
      const aborted = httpRequest({
        host: '127.0.0.1',
        port: env.port,
        path: '/slow',
        agent: false,
      });
      aborted.on('error', () => undefined);
      aborted.end();
      // Polled, not slept: under load the request may take a while to reach the guard.
      expect(await eventually(inFlight, 1)).toBe(1);
      aborted.destroy();
      // The handler still runs for about 250 ms: the slot caps work, not connections.
      await pause(50);
      expect(await inFlight()).toBe(1);
      expect(await eventually(inFlight, 0, SLOW_MS + 2000)).toBe(0);
    });

    it('sliding window: 5 allowed, the 6th denied until the oldest leaves the window', async () => {
      const statuses = [];
      for (let i = 0; i < 6; i++) statuses.push(await call(env.port, { path: '/window' }));
      expect(statuses.map((reply) => reply.status)).toEqual([200, 200, 200, 200, 200, 429]);
      expect(statuses[4].headers['x-ratelimit-remaining']).toBe('0');
      expect(statuses[5].headers['retry-after']).toBe('1');
    });

    it('leaky bucket: 3 immediate, the 4th denied about 1 s, one more after 1 s', async () => {
      const replies = [];
      for (let i = 0; i < 4; i++) replies.push(await call(env.port, { path: '/leaky' }));
      expect(replies.map((reply) => reply.status)).toEqual([200, 200, 200, 429]);
      expect(replies.map((reply) => reply.headers['x-ratelimit-remaining'])).toEqual([
        '2',
        '1',
        '0',
        '0',
      ]);
      expect(replies[3].headers['retry-after']).toBe('1');
      await pause(1_050);
      expect((await call(env.port, { path: '/leaky' })).status).toBe(200);
    });
  },
);
