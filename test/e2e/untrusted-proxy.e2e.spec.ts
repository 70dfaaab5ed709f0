import { Controller, Get, INestApplication, Module } from '@nestjs/common';
import { CountLimit, LimitType, RateLimiterModule } from '../../src';
import { startBehindProxy } from '../helpers/behind-proxy';
import { CaptureLogger } from '../helpers/capture-logger';
import { call, PLATFORMS, startApp } from '../helpers/http';

@Controller()
class IpLimitedController {
  @Get('by-ip')
  @CountLimit({ limitType: LimitType.IP, limit: 100, period: 60 })
  byIp() {
    return 'ok';
  }

  @Get('by-method')
  @CountLimit({ limit: 100, period: 60 })
  byMethod() {
    return 'ok';
  }
}

const UNTRUSTED = /^A request carries X-Forwarded-For, but the app trusts no proxy/;
const forwarded = (i: number) => ({ 'x-forwarded-for': `203.0.113.${i}` });

describe.each(PLATFORMS)('X-Forwarded-For to an app that trusts no proxy, on %s', (platform) => {
  let app: INestApplication | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it('warns once per app, naming the address every client is keyed by and the fix', async () => {
    const logger = new CaptureLogger();
    @Module({ imports: [RateLimiterModule.forRoot()], controllers: [IpLimitedController] })
    class AppModule {}
    const started = await startApp(AppModule, platform, logger);
    app = started.app;
    // No forwarded header: nothing to say.
    await call(started.port, { path: '/by-ip' });
    expect(logger.count('warn', UNTRUSTED)).toBe(0);
    // A METHOD limit reads no address: nothing to say either.
    await call(started.port, { path: '/by-method', headers: forwarded(1) });
    expect(logger.count('warn', UNTRUSTED)).toBe(0);
    for (let i = 0; i < 5; i++) {
      expect((await call(started.port, { path: '/by-ip', headers: forwarded(i) })).status).toBe(
        200,
      );
    }
    expect(logger.count('warn', UNTRUSTED)).toBe(1);
    const [warning] = logger.lines.filter((line) => UNTRUSTED.test(line.message));
    expect(warning.message).toContain(`every client by the address that connected, here '`);
    expect(warning.message).toContain(`127.0.0.1'`);
    expect(warning.message).toContain(`app.set('trust proxy', 1)`);
    expect(warning.message).toContain(`new FastifyAdapter({ trustProxy: 1 })`);
  });

  it('says nothing when the app trusts its proxy', async () => {
    const logger = new CaptureLogger();
    const started = await startBehindProxy(platform, {}, [IpLimitedController], logger);
    app = started.app;
    for (let i = 0; i < 3; i++) {
      await call(started.port, { path: '/by-ip', headers: forwarded(i) });
    }
    expect(logger.count('warn', UNTRUSTED)).toBe(0);
  });

  it('says nothing when resolveIp reads the address', async () => {
    const logger = new CaptureLogger();
    @Module({
      imports: [
        RateLimiterModule.forRoot({
          resolveIp: (request: { headers: Record<string, string> }) =>
            request.headers['x-forwarded-for'],
        }),
      ],
      controllers: [IpLimitedController],
    })
    class AppModule {}
    const started = await startApp(AppModule, platform, logger);
    app = started.app;
    await call(started.port, { path: '/by-ip', headers: forwarded(1) });
    expect(logger.count('warn', UNTRUSTED)).toBe(0);
  });
});
