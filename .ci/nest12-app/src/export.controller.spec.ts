import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { LimiterStore } from 'nestjs-limiter';
import { ManualClock, createTestingStore } from 'nestjs-limiter/testing';
import request from 'supertest';
import { AppModule } from './app.module.js';

describe('ExportController on the testing kit', () => {
  const clock = new ManualClock();
  const store = createTestingStore({ clock });
  let app: INestApplication;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({ imports: [AppModule] })
      .overrideProvider(LimiterStore)
      .useValue(store)
      .compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.init();
  });
  afterAll(() => app.close());
  beforeEach(() => store.clear());

  it('the second export waits its minute on the manual clock, with no real sleeping', async () => {
    const started = Date.now();
    const start = clock.now();
    await request(app.getHttpServer()).get('/export').expect(200);
    let settled = false;
    const second = request(app.getHttpServer())
      .get('/export')
      .then((reply) => {
        settled = true;
        return reply.status;
      });
    await clock.whenWaiting(1);
    expect(clock.pendingWaits).toBe(1);
    clock.advance(59_999);
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    clock.advance(1);
    expect(await second).toBe(200);
    expect(clock.now() - start).toBe(60_000);
    // A real minute did not pass: the wait was the manual clock's.
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('a count limit answers 429 with Retry-After once spent', async () => {
    await request(app.getHttpServer()).get('/hello').expect(200);
    const denied = await request(app.getHttpServer()).get('/hello');
    expect([denied.status, denied.headers['retry-after']]).toEqual([429, '60']);
  });
});
