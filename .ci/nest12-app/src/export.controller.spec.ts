import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { LimiterStore } from 'nestjs-limiter';
import { ManualClock, createTestingStore } from 'nestjs-limiter/testing';
import request from 'supertest';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AppModule } from './app.module.js';

describe('exports, on Vitest', () => {
  const clock = new ManualClock();
  const store = createTestingStore({ clock });
  let app: INestApplication;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({ imports: [AppModule] })
      .overrideProvider(LimiterStore)
      .useValue(store)
      .compile();
    app = await moduleRef.createNestApplication({ logger: false }).init();
  });
  afterAll(() => app.close());
  beforeEach(() => store.clear());

  it('the second export waits its minute on the manual clock', async () => {
    await request(app.getHttpServer()).get('/export').expect(200);
    const second = request(app.getHttpServer())
      .get('/export')
      .then((reply) => reply.status);
    await clock.whenWaiting(1);
    clock.advance(59_999);
    expect(clock.pendingWaits).toBe(1); // one millisecond early: still waiting
    clock.advance(1);
    expect(await second).toBe(200);
    expect(clock.pendingWaits).toBe(0);
  });
});
