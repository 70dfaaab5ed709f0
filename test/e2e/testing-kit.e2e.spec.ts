import { INestApplication } from '@nestjs/common';
import { NestFastifyApplication, FastifyAdapter } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { LimiterStore, MemoryStore } from 'nestjs-limiter';
import { ManualClock, createTestingStore } from 'nestjs-limiter/testing';
import request from 'supertest';
import { AppModule } from '../../sample-app/src/app.module';
import { eventually } from '../helpers/eventually';
import { PLATFORMS } from '../helpers/http';

/**
 * The README's "Testing your app", on the sample app: its module is configured with a Redis
 * URL nobody listens on, and the override must keep every limit in memory on the manual clock.
 */
describe.each(PLATFORMS)('nestjs-limiter/testing on the sample app (%s)', (platform) => {
  let app: INestApplication;
  let clock: ManualClock;
  let store: MemoryStore;

  beforeAll(async () => {
    clock = new ManualClock();
    store = createTestingStore({ clock });
    const moduleRef = await Test.createTestingModule({
      imports: [AppModule.register({ redis: 'redis://127.0.0.1:1', onStoreError: 'deny' })],
    })
      .overrideProvider(LimiterStore)
      .useValue(store)
      .compile();
    app =
      platform === 'fastify'
        ? moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter(), {
            logger: false,
          })
        : moduleRef.createNestApplication({ logger: false });
    await app.init();
    if (platform === 'fastify') {
      await (app as NestFastifyApplication).getHttpAdapter().getInstance().ready();
    }
  });
  afterAll(() => app.close());
  beforeEach(() => store.clear());

  it('a request that must wait 2 s resolves after clock.advance(2000), in well under a real second', async () => {
    const started = Date.now();
    let settled = 0;
    // 10 a second, waits up to 2 s: the first goes at once, the 21st gets the slot at 2000 ms.
    const replies = Array.from({ length: 21 }, () =>
      request(app.getHttpServer())
        .get('/limiter/wait')
        .then((reply) => {
          settled++;
          return reply;
        }),
    );
    await clock.whenWaiting(20);
    expect(settled).toBe(1);
    clock.advance(1999);
    // The 19 released replies travel through real sockets: poll rather than guess a delay.
    expect(await eventually(async () => settled, 20)).toBe(20);
    expect(clock.pendingWaits).toBe(1);
    clock.advance(1);
    const statuses = (await Promise.all(replies)).map((reply) => reply.status);
    expect(statuses).toEqual(Array(21).fill(200));
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('decisions follow the clock: 429 until it advances 5 s; clear() forgets state', async () => {
    const rate = () => request(app.getHttpServer()).get('/limiter/rate');
    expect((await rate()).status).toBe(200);
    const denied = await rate();
    expect([denied.status, denied.headers['retry-after']]).toEqual([429, '5']);
    clock.advance(4999);
    expect((await rate()).status).toBe(429);
    clock.advance(1);
    expect((await rate()).status).toBe(200);
    expect((await rate()).status).toBe(429);
    store.clear();
    expect((await rate()).status).toBe(200);
  });

  it('the programmatic factory uses the same store', async () => {
    const rate2 = () => request(app.getHttpServer()).get('/limiter/rate2');
    expect([(await rate2()).status, (await rate2()).status]).toEqual([200, 429]);
    clock.advance(5000);
    expect((await rate2()).status).toBe(200);
  });
});
