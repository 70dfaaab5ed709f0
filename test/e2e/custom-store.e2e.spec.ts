import { Controller, Get, INestApplication, Module } from '@nestjs/common';
import {
  CountLimit,
  Decision,
  DecisionCall,
  LimiterStore,
  RateLimitEvent,
  RateLimiterModule,
  RateLimiterModuleOptions,
} from '../../src';
import { call, startApp } from '../helpers/http';

@Controller('shared')
class SharedKeyController {
  @Get('strict')
  @CountLimit({ key: 'shared', limit: 1, period: 60 })
  strict() {
    return 'ok';
  }
}

function moduleWith(options: RateLimiterModuleOptions, controllers: any[]) {
  @Module({ imports: [RateLimiterModule.forRoot(options)], controllers })
  class TestModule {}
  return TestModule;
}

class BrokenStore extends LimiterStore {
  evaluate<P, R, S>(_call: DecisionCall<P, R, S>): Promise<Decision> {
    return Promise.reject(new TypeError('backend exploded'));
  }
}

describe('a custom store that throws', () => {
  const apps: INestApplication[] = [];
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()));
  });

  it.each([
    ['allow', 200],
    ['deny', 503],
  ] as const)('under %s answers %d, never 500', async (onStoreError, status) => {
    const events: RateLimitEvent[] = [];
    const started = await startApp(
      moduleWith(
        { store: new BrokenStore(), onStoreError, onDecision: (event) => events.push(event) },
        [SharedKeyController],
      ),
      'express',
    );
    apps.push(started.app);
    expect((await call(started.port, { path: '/shared/strict' })).status).toBe(status);
    expect(events.map((event) => [event.outcome, event.limit, event.error?.message])).toEqual([
      [
        'store-error',
        '@CountLimit on SharedKeyController.strict',
        'the store failed: backend exploded',
      ],
    ]);
  });
});
