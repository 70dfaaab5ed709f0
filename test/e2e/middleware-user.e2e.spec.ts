import {
  Controller,
  Get,
  INestApplication,
  Injectable,
  MiddlewareConsumer,
  Module,
  NestMiddleware,
  NestModule,
} from '@nestjs/common';
import { CountLimit, LimitType, RateLimiterModule } from 'nestjs-limiter';
import { call, PLATFORMS, startApp } from '../helpers/http';

/**
 * Authentication as middleware: on Express `req` is the request the guard sees; on Fastify
 * Nest middleware receives the raw Node request, so the user lands on `request.raw.user`.
 */
@Injectable()
class TokenMiddleware implements NestMiddleware {
  use(req: any, _res: unknown, next: () => void) {
    const token = req.headers['authorization'];
    if (typeof token === 'string' && token.startsWith('Bearer ')) {
      req.user = { id: token.slice('Bearer '.length) };
    }
    next();
  }
}

@Controller('me')
class MeController {
  @Get()
  @CountLimit({ limitType: LimitType.USER, limit: 2, period: 60 })
  me() {
    return 'ok';
  }

  @Get('template')
  @CountLimit({ key: 'me:#{user?.id}', limit: 1, period: 60 })
  template() {
    return 'ok';
  }
}

@Module({ imports: [RateLimiterModule.forRoot()], controllers: [MeController] })
class AuthModule implements NestModule {
  configure(consumer: MiddlewareConsumer) {
    consumer.apply(TokenMiddleware).forRoutes(MeController);
  }
}

describe.each(PLATFORMS)('USER limits with a user set by middleware on %s', (platform) => {
  let app: INestApplication;
  let port: number;
  const as = (user: string | undefined, path = '/me') =>
    call(port, { path, headers: user ? { authorization: `Bearer ${user}` } : {} });

  beforeAll(async () => {
    ({ app, port } = await startApp(AuthModule, platform));
  });
  afterAll(() => app.close());

  it('counts each user separately, not by IP', async () => {
    const statuses = [];
    for (const user of ['alice', 'alice', 'alice', 'bob', 'carol', undefined, undefined]) {
      statuses.push((await as(user)).status);
    }
    // Counted by IP, the third request would be denied and every later one too.
    expect(statuses).toEqual([200, 200, 429, 200, 200, 200, 200]);
    expect((await as(undefined)).status).toBe(429);
  });

  it('templates see the same user', async () => {
    expect([
      (await as('dave', '/me/template')).status,
      (await as('dave', '/me/template')).status,
    ]).toEqual([200, 429]);
    expect((await as('erin', '/me/template')).status).toBe(200);
    // `?.` does not make a missing user acceptable: the key would be empty (docs/keys.md).
    const anonymous = await as(undefined, '/me/template');
    expect([anonymous.status, anonymous.body.message]).toEqual([
      400,
      'Missing a value this request is rate-limited by',
    ]);
  });
});
