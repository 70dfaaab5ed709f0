import { Controller, Get, Module, Post } from '@nestjs/common';
import { CountLimit, RateLimiterModule, RateLimiterModuleOptions } from '../../src';
import { useAppOnRedis } from '../helpers/app-on-redis';
import { CaptureLogger } from '../helpers/capture-logger';
import { initApp } from '../helpers/init-app';
import { call, PLATFORMS } from '../helpers/http';

@Controller()
class OutageController {
  // Brute-force protection must hold during an outage, whatever the module's policy.
  @Post('login')
  @CountLimit({ limit: 5, period: 60, onStoreError: 'deny' })
  login() {
    return 'ok';
  }

  @Get('feed')
  @CountLimit({ limit: 5, period: 60 })
  feed() {
    return 'ok';
  }

  @Get('memory')
  @CountLimit({ limit: 2, period: 60, onStoreError: 'fallback' })
  memory() {
    return 'ok';
  }
}

// No storeTimeout of their own: a killed Redis closes the connection, refused at once, and a
// short one would fail the first decision of a fresh app on a starved machine.
const options: Omit<RateLimiterModuleOptions, 'redis'> = {
  defaults: [{ name: 'strict', algorithm: 'countLimit', limit: 100, period: 60 }],
};

describe.each(PLATFORMS)("a limit's own onStoreError during an outage (%s)", (platform) => {
  const env = useAppOnRedis([OutageController], platform, options);
  const statuses = async (method: 'GET' | 'POST', path: string, count: number) => {
    const result: number[] = [];
    for (let i = 0; i < count; i++) result.push((await call(env.port, { method, path })).status);
    return result;
  };

  it("answers 503 on /login ('deny') while /feed follows the module's 'allow'", async () => {
    expect(await statuses('POST', '/login', 1)).toEqual([201]);
    expect(await statuses('GET', '/feed', 1)).toEqual([200]);
    await env.redis.kill();
    try {
      expect(await statuses('POST', '/login', 3)).toEqual([503, 503, 503]);
      // Past the limit of 5 as well: the module's 'allow' lets every one through.
      expect(await statuses('GET', '/feed', 7)).toEqual([200, 200, 200, 200, 200, 200, 200]);
      // 'fallback' on one limit, with none in the module: counted in memory, 2 then 429.
      expect(await statuses('GET', '/memory', 4)).toEqual([200, 200, 429, 429]);
    } finally {
      await env.redis.start();
    }
  });
});

describe("a default's onStoreError", () => {
  @Controller()
  class DefaultController {
    @Get('plain')
    plain() {
      return 'ok';
    }

    @Get('own')
    @CountLimit({ name: 'guarded', limit: 5, period: 60, onStoreError: 'allow' })
    own() {
      return 'ok';
    }
  }
  const env = useAppOnRedis([DefaultController], 'express', {
    defaults: [
      { name: 'guarded', algorithm: 'countLimit', limit: 100, period: 60, onStoreError: 'deny' },
    ],
  });

  it('applies to every handler it limits; a decorator replacing it by name brings its own', async () => {
    expect((await call(env.port, { path: '/plain' })).status).toBe(200);
    await env.redis.kill();
    try {
      expect((await call(env.port, { path: '/plain' })).status).toBe(503);
      expect((await call(env.port, { path: '/own' })).status).toBe(200);
    } finally {
      await env.redis.start();
    }
  });
});

describe('onStoreError on a decorator at start-up', () => {
  it('a value outside the policies fails start-up naming class, method and option', async () => {
    @Controller()
    class TypoController {
      @Get()
      @CountLimit({ limit: 5, period: 60, onStoreError: 'deny ' as never })
      handle() {
        return 'ok';
      }
    }
    @Module({ imports: [RateLimiterModule.forRoot()], controllers: [TypoController] })
    class TypoModule {}
    await expect(initApp(TypoModule, new CaptureLogger())).rejects.toThrow(
      "@CountLimit on TypoController.handle: option 'onStoreError' must be one of 'allow', 'deny', 'fallback', got 'deny ' (did you mean 'deny'?)",
    );
  });
});
