import { Controller, Get, INestApplication, Module } from '@nestjs/common';
import { initApp } from '../helpers/init-app';
import { CountLimit, DefaultLimit, RateLimiterModule, SkipRateLimit } from '../../src';
import { CaptureLogger } from '../helpers/capture-logger';

/**
 * A misspelt name that would be silent until the first request (a key template root that
 * answers 400 on every request) or forever (a skip that skips nothing) fails start-up,
 * naming the handler and the name it is closest to.
 */
const DEFAULTS: DefaultLimit[] = [{ name: 'short', algorithm: 'countLimit', limit: 3, period: 1 }];

async function boot(controller: Function): Promise<INestApplication> {
  const logger = new CaptureLogger();
  @Module({
    imports: [RateLimiterModule.forRoot({ defaults: DEFAULTS })],
    controllers: [controller as never],
  })
  class AppModule {}
  return initApp(AppModule, logger);
}

describe('misspelt names fail start-up with a did-you-mean', () => {
  it('a key template root', async () => {
    @Controller()
    class LoginController {
      @Get()
      @CountLimit({ limit: 5, period: 60, key: 'login:#{bdy.username}' })
      login() {
        return 'ok';
      }
    }
    await expect(boot(LoginController)).rejects.toThrow(
      "@CountLimit on LoginController.login: key template 'login:#{bdy.username}' reads 'bdy', which is no root of a request and would be looked up as a field of params, query and body (a 400 on every request without one): did you mean 'body'?",
    );
  });

  it('a key template root in a fallback', async () => {
    @Controller()
    class KeyController {
      @Get()
      @CountLimit({ limit: 5, period: 60, key: "#{headers['x-api-key'] ?? usr.id}" })
      get() {
        return 'ok';
      }
    }
    await expect(boot(KeyController)).rejects.toThrow("reads 'usr'");
  });

  it('a skipped name next to a default', async () => {
    @Controller()
    class HealthController {
      @Get()
      @SkipRateLimit('shrot')
      health() {
        return 'ok';
      }
    }
    await expect(boot(HealthController)).rejects.toThrow(
      "HealthController.health: @SkipRateLimit('shrot') names no limit of this handler, so it skips nothing: did you mean 'short'?",
    );
  });

  it('still takes bare names, and skipped names close to nothing', async () => {
    @Controller()
    @SkipRateLimit('nightly-batch')
    class FineController {
      @Get()
      @CountLimit({ name: 'perTenant', limit: 5, period: 60, key: '#{tenant.id}:#{body.username}' })
      get() {
        return 'ok';
      }
    }
    const app = await boot(FineController);
    await app.close();
  });

  it('takes a bare name that holds a root in a longer word: a field, not a typo', async () => {
    @Controller()
    class ProfileController {
      @Get()
      @CountLimit({ limit: 5, period: 60, key: '#{userInfo.id}:#{queryOptions.page}' })
      get() {
        return 'ok';
      }
    }
    const app = await boot(ProfileController);
    await app.close();
  });
});
