import { Controller, Get, INestApplication, Module } from '@nestjs/common';
import { Query, Resolver } from '@nestjs/graphql';
import request from 'supertest';
import { DefaultLimit, RateLimiterModule, SkipRateLimit } from '../../src';
import { LimitExplorer } from '../../src/compile/limit.explorer';
import { CaptureLogger } from '../helpers/capture-logger';
import { initApp } from '../helpers/init-app';

/**
 * Every handler's limits are compiled when the application starts, a resolver's that has
 * only the module's defaults included: a mistake fails start-up, and a request compiles
 * nothing.
 */
const DEFAULTS: DefaultLimit[] = [{ name: 'short', algorithm: 'countLimit', limit: 3, period: 1 }];

@Resolver()
class ItemResolver {
  @Query(() => String)
  item() {
    return 'item';
  }
}

@Controller()
class PingController {
  @Get('ping')
  ping() {
    return 'pong';
  }
}

async function boot(providers: Function[]): Promise<INestApplication> {
  @Module({
    imports: [RateLimiterModule.forRoot({ defaults: DEFAULTS })],
    controllers: [PingController],
    providers: providers as never[],
  })
  class AppModule {}
  return initApp(AppModule, new CaptureLogger());
}

describe('a handler’s limits are compiled at start-up, not on its first request', () => {
  it('a resolver with only the module’s defaults is compiled at start-up', async () => {
    const app = await boot([ItemResolver]);
    try {
      const wheres = app
        .get(LimitExplorer)
        .allLimits()
        .map((limit) => limit.where);
      expect(wheres.sort()).toEqual([
        'defaults[0] on ItemResolver.item',
        'defaults[0] on PingController.ping',
      ]);
    } finally {
      await app.close();
    }
  });

  it('a misspelt skip on a resolver fails start-up, naming its class and method', async () => {
    @Resolver()
    class MisspeltResolver {
      @Query(() => String)
      @SkipRateLimit('shrot')
      item() {
        return 'item';
      }
    }
    await expect(boot([MisspeltResolver])).rejects.toThrow(
      "MisspeltResolver.item: @SkipRateLimit('shrot') names no limit of this handler, so it skips nothing: did you mean 'short'?",
    );
  });

  it('a request compiles nothing: its route was found at start-up', async () => {
    const app = await boot([]);
    const explorer = app.get(LimitExplorer);
    const compile = jest.spyOn(explorer as never as { compile: () => unknown }, 'compile');
    try {
      await request(app.getHttpServer()).get('/ping').expect(200);
      await request(app.getHttpServer()).get('/ping').expect(200);
      expect(compile).toHaveBeenCalledTimes(0);
      expect(explorer.allLimits()).toHaveLength(1);
    } finally {
      await app.close();
    }
  });
});
