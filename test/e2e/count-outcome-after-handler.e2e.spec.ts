import { Controller, Get, MessageEvent, Res, Sse } from '@nestjs/common';
import { interval, map, Observable, take } from 'rxjs';
import { SlidingWindowLimit } from '../../src';
import { useAppOnRedis } from '../helpers/app-on-redis';
import { eventually } from '../helpers/eventually';
import { download, hangUp, pause } from '../helpers/hang-up';
import { call, PLATFORMS } from '../helpers/http';

const HANDLER_MS = 200;
const runs = { slow: 0, slowDone: 0, login: 0, lateLogin: 0 };

/** Answers later, as a passport-style callback does: Express's `res` or Fastify's reply. */
function answerLater(response: any, status: number, afterMs: number): void {
  setTimeout(() => {
    const body = { statusCode: status };
    if (typeof response.json === 'function') response.status(status).json(body);
    else response.status(status).send(body);
  }, afterMs);
}

@Controller('count')
class CountController {
  /** 10 successful exports a minute. */
  @Get('slow')
  @SlidingWindowLimit({ key: 'slow', limit: 10, window: 60, count: 'successes' })
  async slow() {
    runs.slow++;
    await pause(HANDLER_MS);
    runs.slowDone++;
    return 'done';
  }

  /** 5 wrong passwords a minute; the answer comes 20 ms after the handler returned. */
  @Get('login')
  @SlidingWindowLimit({ key: 'login', limit: 5, window: 60, count: 'failures' })
  login(@Res() response: any) {
    runs.login++;
    answerLater(response, 401, 20);
  }

  /** A stream of 20 events, one every 50 ms; only failures count. */
  @Sse('events')
  @SlidingWindowLimit({ key: 'events', limit: 5, window: 60, count: 'failures' })
  events(): Observable<MessageEvent> {
    return interval(50).pipe(
      take(20),
      map((i) => ({ data: { i } })),
    );
  }

  /** The same, answered 100 ms later: long after a client that leaves at 10 ms. */
  @Get('late-login')
  @SlidingWindowLimit({ key: 'late-login', limit: 5, window: 60, count: 'failures' })
  lateLogin(@Res() response: any) {
    runs.lateLogin++;
    answerLater(response, 401, 100);
  }
}

describe.each(PLATFORMS)('count modes once the handler has started, on %s', (platform) => {
  const env = useAppOnRedis([CountController], platform);
  const counted = (key: string) => env.admin.zcard(`slidingWindow:${key}`);

  beforeEach(async () => {
    await env.admin.flushall();
    Object.assign(runs, { slow: 0, slowDone: 0, login: 0, lateLogin: 0 });
  });

  it("'successes': clients that hang up while the handler runs still count its success", async () => {
    // 5 waves of 10 clients, each leaving 50 ms into a 200 ms handler.
    for (let wave = 0; wave < 5; wave++) {
      await Promise.all(Array.from({ length: 10 }, () => hangUp(env.port, '/count/slow', 50)));
      await pause(100);
    }
    expect(await eventually(async () => runs.slowDone, runs.slow, 3000)).toBe(10);
    expect(runs.slow).toBe(10);
    expect(await eventually(() => counted('slow'), 10)).toBe(10);
    expect((await call(env.port, { path: '/count/slow' })).status).toBe(429);
  });

  it("'failures': an @Res() handler that answers 401 after returning counts as a failure", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 50; i++)
      statuses.push((await call(env.port, { path: '/count/login' })).status);
    expect(runs.login).toBe(5);
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(45);
    expect(await counted('login')).toBe(5);
  });

  it("'failures': a client that leaves before the @Res() handler answers 401 still counts", async () => {
    for (let i = 0; i < 20; i++) {
      await hangUp(env.port, '/count/late-login', 10);
      await pause(20);
    }
    expect(runs.lateLogin).toBe(5);
    expect(await eventually(() => counted('late-login'), 5)).toBe(5);
    await pause(150); // the last handler's answer, to a client long gone
    expect(await counted('late-login')).toBe(5);
  });

  it("'failures': a stream whose client leaves was no failure: it gives its permit back", async () => {
    const stream = download(env.port, '/count/events');
    await stream.firstBytes;
    expect(await counted('events')).toBe(1);
    stream.abort();
    expect(await eventually(() => counted('events'), 0)).toBe(0);
  });
});
