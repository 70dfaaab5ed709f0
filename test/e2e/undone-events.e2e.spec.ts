import { Controller, Get } from '@nestjs/common';
import { CountLimit, RateLimitEvent, SlidingWindowLimit } from '../../src';
import { useAppOnRedis } from '../helpers/app-on-redis';
import { afterStartUpCheck, scriptCalls } from '../helpers/command-stats';
import { call, PLATFORMS } from '../helpers/http';

@Controller()
class PairController {
  @Get('hit')
  @SlidingWindowLimit({ limit: 1, window: 5 })
  @CountLimit({ limit: 20, period: '1h' })
  hit() {
    return 'ok';
  }

  /** The same limits declared the other way round: the cached one is decided second. */
  @Get('tih')
  @CountLimit({ limit: 20, period: '1h' })
  @SlidingWindowLimit({ limit: 1, window: 5 })
  tih() {
    return 'ok';
  }
}

/**
 * A limit answered denied from the local denial cache sends none of the request's other
 * limits: they took nothing, and onDecision says `undone`, never `allowed`.
 */
describe.each(PLATFORMS)('a member never sent is undone, on %s', (platform) => {
  const events: RateLimitEvent[] = [];
  const env = useAppOnRedis([PairController], platform, {
    onDecision: (event) => events.push(event),
  });

  it.each(['hit', 'tih'])('/%s: denied from the cache, the other limit is undone', async (path) => {
    await afterStartUpCheck(env.admin);
    const outcomes = async () => {
      events.length = 0;
      const { status } = await call(env.port, { path: `/${path}` });
      const byLimit = events.map((event) => [event.limit.split(' ')[0], event.outcome]);
      return { status, events: byLimit.sort() };
    };
    expect(await outcomes()).toEqual({
      status: 200,
      events: [
        ['@CountLimit', 'allowed'],
        ['@SlidingWindowLimit', 'allowed'],
      ],
    });
    expect(await outcomes()).toEqual({
      status: 429,
      events: [
        ['@CountLimit', 'undone'],
        ['@SlidingWindowLimit', 'denied'],
      ],
    });
    const callsBefore = await scriptCalls(env.admin);
    expect(await outcomes()).toEqual({
      status: 429,
      events: [
        ['@CountLimit', 'undone'],
        ['@SlidingWindowLimit', 'denied'],
      ],
    });
    // Denied from the cache: nothing was sent, and the hourly count kept the one run.
    expect((await scriptCalls(env.admin)) - callsBefore).toBe(0);
    expect(await env.admin.get(`countLimit:~PairController.${path}`)).toBe('1');
  });
});
