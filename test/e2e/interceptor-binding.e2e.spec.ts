import { APP_INTERCEPTOR } from '@nestjs/core';
import {
  CallHandler,
  Controller,
  ExecutionContext,
  Get,
  INestApplication,
  Injectable,
  Module,
  NestInterceptor,
  UseGuards,
  UseInterceptors,
} from '@nestjs/common';
import { of } from 'rxjs';
import {
  ConcurrencyLimit,
  CountLimit,
  LimitType,
  RateLimiterModule,
  RateLimitInterceptor,
  SkipRateLimit,
} from '../../src';
import { HeaderAuthGuard } from '../helpers/header-auth-guard';
import { call, PLATFORMS, startApp } from '../helpers/http';

/** A cache that answers every request after the first without running the handler. */
@Injectable()
class AnswersFromCache implements NestInterceptor {
  private cached = false;
  intercept(_context: ExecutionContext, next: CallHandler) {
    if (this.cached) return of('cached');
    this.cached = true;
    return next.handle();
  }
}

describe.each(PLATFORMS)(
  'the module binds RateLimitInterceptor only where needed on %s',
  (platform) => {
    let app: INestApplication | undefined;
    let intercepted: jest.SpyInstance;
    let port: number;
    const get = async (path: string, user?: string) =>
      (await call(port, { path, headers: user ? { 'x-user': user } : {} })).status;
    /** How many times RateLimitInterceptor ran for `times` requests of `path`. */
    const interceptions = async (path: string, times = 3) => {
      intercepted.mockClear();
      for (let i = 0; i < times; i++) expect(await get(path, 'alice')).toBe(200);
      return intercepted.mock.calls.length;
    };
    const boot = async (module: object) => ({ app, port } = await startApp(module, platform));

    beforeEach(() => {
      intercepted = jest.spyOn(RateLimitInterceptor.prototype, 'intercept');
    });
    afterEach(async () => {
      intercepted.mockRestore();
      await app?.close();
      app = undefined;
    });

    it('runs no interceptor of ours on a plain @CountLimit or an unlimited route; one per request where a limit needs it', async () => {
      @Controller()
      // Sets the user after the limiter's global guard: USER limits wait for it.
      @UseGuards(HeaderAuthGuard)
      class RoutesController {
        @Get('plain')
        @CountLimit({ limit: 100, period: 60 })
        plain() {
          return 'ok';
        }

        @Get('none')
        none() {
          return 'ok';
        }

        @Get('user')
        @CountLimit({ limitType: LimitType.USER, limit: 100, period: 60 })
        user() {
          return 'ok';
        }

        @Get('slot')
        @ConcurrencyLimit({ max: 5 })
        slot() {
          return 'ok';
        }

        @Get('counted')
        @CountLimit({ limit: 100, period: 60, count: 'failures' })
        counted() {
          return 'ok';
        }

        @Get('settled')
        @CountLimit({ limit: 100, period: 60, settle: () => 1 })
        settled() {
          return 'ok';
        }
      }
      @Module({ imports: [RateLimiterModule.forRoot()], controllers: [RoutesController] })
      class AppModule {}
      await boot(AppModule);
      expect(await interceptions('/plain')).toBe(0);
      expect(await interceptions('/none')).toBe(0);
      expect(await interceptions('/user')).toBe(3);
      expect(await interceptions('/slot')).toBe(3);
      expect(await interceptions('/counted')).toBe(3);
      expect(await interceptions('/settled')).toBe(3);
    });

    it('binds it to every handler when a default needs it, and to none a skip frees', async () => {
      @Controller()
      class DefaultedController {
        @Get('defaulted')
        defaulted() {
          return 'ok';
        }

        @Get('skipped')
        @SkipRateLimit()
        skipped() {
          return 'ok';
        }
      }
      @Module({
        imports: [
          RateLimiterModule.forRoot({
            defaults: [{ name: 'slots', algorithm: 'concurrencyLimit', max: 5 }],
          }),
        ],
        controllers: [DefaultedController],
      })
      class AppModule {}
      await boot(AppModule);
      expect(await interceptions('/defaulted')).toBe(3);
      expect(await interceptions('/skipped')).toBe(0);
    });

    it('runs before a class-level interceptor: a cache cannot answer past a deferred USER limit', async () => {
      @Controller('cached')
      @UseGuards(HeaderAuthGuard)
      @UseInterceptors(AnswersFromCache)
      class CachedController {
        @Get()
        @CountLimit({ limitType: LimitType.USER, limit: 2, period: 60 })
        get() {
          return 'fresh';
        }
      }
      @Module({ imports: [RateLimiterModule.forRoot()], controllers: [CachedController] })
      class AppModule {}
      await boot(AppModule);
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push(await get('/cached', 'bob'));
      expect(statuses).toEqual([200, 200, 429, 429]);
    });

    it('decides once when the app binds it too, on the class and globally', async () => {
      @Controller('twice')
      @UseGuards(HeaderAuthGuard)
      @UseInterceptors(RateLimitInterceptor)
      class TwiceController {
        @Get()
        @CountLimit({ limitType: LimitType.USER, limit: 2, period: 60 })
        get() {
          return 'ok';
        }
      }
      @Module({
        imports: [RateLimiterModule.forRoot()],
        controllers: [TwiceController],
        providers: [{ provide: APP_INTERCEPTOR, useClass: RateLimitInterceptor }],
      })
      class AppModule {}
      await boot(AppModule);
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push(await get('/twice', 'carol'));
      // Counted twice, the second request would be the third count: 429.
      expect(statuses).toEqual([200, 200, 429, 429]);
      // Bound twice, not three times: the global one and the class's run for each allowed
      // request; a denied one stops at the global one, which decided it.
      expect(intercepted.mock.calls.length).toBe(2 * 2 + 2);
    });
  },
);
