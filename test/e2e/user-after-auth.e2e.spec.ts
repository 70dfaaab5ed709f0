import {
  CanActivate,
  Controller,
  ExecutionContext,
  Get,
  Injectable,
  INestApplication,
  Module,
  Post,
  UnauthorizedException,
  UseGuards,
} from '@nestjs/common';
import { ConcurrencyLimit, CountLimit, LimitType, RateLimiterModule } from '../../src';
import { CaptureLogger } from '../helpers/capture-logger';
import { call, PLATFORMS, startApp } from '../helpers/http';
import { RedisServer, startRedisServer } from '../helpers/redis-server';
import Redis from 'ioredis';

/** A Passport-style guard bound on the controller: Nest runs it after every global guard. */
@Injectable()
class HeaderAuthGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest();
    const user = request.headers['x-user'];
    if (typeof user !== 'string') throw new UnauthorizedException();
    request.user = { id: user };
    return true;
  }
}

@Controller('account')
@UseGuards(HeaderAuthGuard)
class AccountController {
  @Get()
  @CountLimit({ limitType: LimitType.USER, limit: 2, period: 60 })
  get() {
    return 'ok';
  }

  /** All or nothing across the two phases: a denial by USER keeps nothing of the IP limit. */
  @Get('both')
  @CountLimit({ limitType: LimitType.USER, limit: 1, period: 60 })
  @CountLimit({ limitType: LimitType.IP, limit: 10, period: 60 })
  both() {
    return 'ok';
  }

  /** `count: 'failures'` decided after the auth guard: only failed logins count. */
  @Post('login')
  @CountLimit({ limitType: LimitType.USER, limit: 2, period: 60, count: 'failures' })
  login() {
    throw new UnauthorizedException('wrong password');
  }

  @Get('template')
  @CountLimit({ key: 'me:#{user.id}', limit: 1, period: 60 })
  template() {
    return 'ok';
  }

  @Get('slot')
  @ConcurrencyLimit({ limitType: LimitType.USER, max: 1 })
  async slot() {
    await new Promise((resolve) => setTimeout(resolve, 200));
    return 'ok';
  }
}

@Controller('public')
class PublicController {
  @Get()
  @CountLimit({ limitType: LimitType.USER, limit: 1, period: 60 })
  get() {
    return 'ok';
  }
}

describe.each(PLATFORMS)('USER limits behind a controller-level auth guard on %s', (platform) => {
  let redis: RedisServer;
  let admin: Redis;
  let app: INestApplication;
  let port: number;
  const logger = new CaptureLogger();
  const as = (user: string | undefined, path = '/account', method = 'GET') =>
    call(port, { method, path, headers: user ? { 'x-user': user } : {} });
  const statuses = async (users: (string | undefined)[], path?: string, method?: string) => {
    const result = [];
    for (const user of users) result.push((await as(user, path, method)).status);
    return result;
  };

  beforeAll(async () => {
    redis = await startRedisServer();
    admin = redis.client();
    @Module({
      imports: [RateLimiterModule.forRoot({ redis: redis.url })],
      controllers: [AccountController, PublicController],
    })
    class AppModule {}
    ({ app, port } = await startApp(AppModule, platform, logger));
  });
  afterAll(async () => {
    await app?.close();
    await redis?.stop();
  });

  it('keys by the user the guard set, not by IP', async () => {
    expect(await statuses(['alice', 'alice', 'bob', 'alice'])).toEqual([200, 200, 200, 429]);
    expect(await admin.get('countLimit:~AccountController.get:alice')).not.toBeNull();
    expect(await admin.get('countLimit:~AccountController.get:bob')).toBe('1');
    expect(await admin.exists('countLimit:~AccountController.get:ip:127.0.0.1')).toBe(0);
    // The app's guard answers first: an anonymous request is a 401, not a limit.
    expect((await as(undefined)).status).toBe(401);
  });

  it('stays exact under a burst decided in the second phase: 2 of 30 at once', async () => {
    const replies = await Promise.all(Array.from({ length: 30 }, () => as('mallory')));
    expect(replies.filter((reply) => reply.status === 200)).toHaveLength(2);
    expect(replies.filter((reply) => reply.status === 429)).toHaveLength(28);
  });

  it('sends the headers and the 429 body from the second phase', async () => {
    const first = await as('carol');
    expect(first.headers['x-ratelimit-limit']).toBe('2');
    expect(first.headers['x-ratelimit-remaining']).toBe('1');
    await as('carol');
    const denied = await as('carol');
    expect(denied.status).toBe(429);
    expect(denied.body).toEqual({ statusCode: 429, message: 'Too Many Requests', retryAfter: 60 });
    expect(denied.headers['retry-after']).toBe('60');
  });

  it('decides all limits of the handler together: a USER denial keeps nothing of the IP limit', async () => {
    expect(await statuses(['dave', 'dave', 'dave', 'erin'], '/account/both')).toEqual([
      200, 429, 429, 200,
    ]);
    expect(await admin.get('countLimit:~AccountController.both:127.0.0.1')).toBe('2');
  });

  it('counts failures per user after authentication', async () => {
    expect(await statuses(['frank', 'frank', 'frank'], '/account/login', 'POST')).toEqual([
      401, 401, 429,
    ]);
    expect(await statuses(['grace'], '/account/login', 'POST')).toEqual([401]);
  });

  it('templates that read the user wait for it too', async () => {
    expect(await statuses(['heidi', 'heidi', 'ivan'], '/account/template')).toEqual([
      200, 429, 200,
    ]);
  });

  it('holds a USER concurrency slot from the second phase and gives it back', async () => {
    const [first, second] = await Promise.all([
      as('judy', '/account/slot'),
      new Promise((resolve) => setTimeout(resolve, 80)).then(() => as('judy', '/account/slot')),
    ]);
    expect([first.status, second.status]).toEqual([200, 429]);
    expect(await admin.zcard('concurrency:~AccountController.slot:judy')).toBe(0);
    expect((await as('judy', '/account/slot')).status).toBe(200);
  });

  it('with no user even then, counts by IP and says so once per handler', async () => {
    expect(await statuses([undefined, undefined, undefined], '/public')).toEqual([200, 429, 429]);
    expect(await admin.exists('countLimit:~PublicController.get:ip:127.0.0.1')).toBe(1);
    expect(
      logger.count(
        'warn',
        /^PublicController\.get: a request has no user, even after the app.s guards ran/,
      ),
    ).toBe(1);
  });
});
