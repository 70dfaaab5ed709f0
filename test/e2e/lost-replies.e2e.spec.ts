import { Controller, Get, Module, Query, UnauthorizedException } from '@nestjs/common';
import { INestApplication } from '@nestjs/common';
import { CountLimit, RateLimiterModule } from '../../src';
import { eventually } from '../helpers/eventually';
import { call, startApp } from '../helpers/http';
import { RedisServer, startRedisServer } from '../helpers/redis-server';
import { RespProxy, startRespProxy } from '../helpers/resp-proxy';

let gate: Promise<void> = Promise.resolve();

@Controller()
class LoginController {
  /** 5 wrong passwords per 10 minutes: a success gives its permit back. */
  @Get('login')
  @CountLimit({ key: 'login', limit: 5, period: 600, count: 'failures' })
  async login(@Query('ok') ok?: string) {
    await gate;
    if (ok) return 'welcome';
    throw new UnauthorizedException();
  }
}

/**
 * `count: 'failures'` across a lost reply: a success's give-back reaches Redis, its reply
 * is lost (the proxy drops the connection while Redis is frozen), and ioredis reconnects.
 * Applied twice, the give-back would free a failure's permit: 6 failures on a limit of 5.
 */
describe("count: 'failures' when a give-back's reply is lost", () => {
  let redis: RedisServer;
  let proxy: RespProxy;
  let app: INestApplication;
  let port: number;

  beforeAll(async () => {
    redis = await startRedisServer();
    proxy = await startRespProxy(redis.port, {});
    @Module({
      // A call sent again within storeTimeout runs (past it, Redis would skip it as late).
      imports: [RateLimiterModule.forRoot({ redis: proxy.url, storeTimeout: 5000 })],
      controllers: [LoginController],
    })
    class AppModule {}
    ({ app, port } = await startApp(AppModule, 'express'));
  });
  afterAll(async () => {
    await app?.close();
    await proxy?.close();
    await redis?.stop();
  });

  it('admits exactly 5 failures', async () => {
    const admin = redis.client();
    const counted = async () => Number(await admin.get('countLimit:login'));
    const clients = async () =>
      String(await admin.call('CLIENT', 'LIST'))
        .split('\n')
        .filter(Boolean).length;
    const login = async (query = '') => (await call(port, { path: `/login${query}` })).status;
    expect([await login(), await login()]).toEqual([401, 401]);
    let open!: () => void;
    gate = new Promise((resolve) => (open = resolve));
    const success = login('?ok=1');
    expect(await eventually(counted, 3)).toBe(3);
    const connections = await clients();
    redis.freeze();
    open();
    // The success's give-back leaves and waits in the frozen Redis's socket.
    await new Promise((resolve) => setTimeout(resolve, 100));
    proxy.dropConnections();
    redis.thaw();
    expect(await success).toBe(200);
    // The app's connections are back (whatever ioredis sends again goes as they are ready).
    expect(await eventually(clients, connections, 10_000)).toBe(connections);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push(await login());
    // 2 failures before the success, 3 after it; then the limit.
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    expect(await counted()).toBe(5);
  });
});
