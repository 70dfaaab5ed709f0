/** The optional integrations, and what loading them would look like without them installed. */
const OPTIONAL = [
  '@nestjs/websockets',
  '@nestjs/graphql',
  'graphql',
  '@nestjs/microservices',
  '@opentelemetry/api',
  '@nestjs/swagger',
  '@nestjs/terminus',
];

describe('without @nestjs/graphql, graphql, @nestjs/websockets, @nestjs/microservices, @opentelemetry/api, @nestjs/swagger or @nestjs/terminus', () => {
  const attempts: string[] = [];

  beforeAll(() => {
    for (const name of OPTIONAL) {
      jest.doMock(name, () => {
        attempts.push(name);
        throw Object.assign(new Error(`Cannot find module '${name}'`), {
          code: 'MODULE_NOT_FOUND',
        });
      });
    }
  });
  afterAll(() => {
    for (const name of OPTIONAL) jest.dontMock(name);
  });

  it('loads, limits HTTP requests, and turns WS and GraphQL denials into HTTP exceptions', async () => {
    let lib!: typeof import('../../src');
    let ExecutionContextHost!: typeof import('@nestjs/core/helpers/execution-context-host').ExecutionContextHost;
    let nestCommon!: typeof import('@nestjs/common');
    let testing!: typeof import('@nestjs/testing');
    jest.isolateModules(() => {
      /* eslint-disable @typescript-eslint/no-require-imports -- a fresh module registry */
      lib = require('../../src');
      nestCommon = require('@nestjs/common');
      testing = require('@nestjs/testing');
      ExecutionContextHost =
        require('@nestjs/core/helpers/execution-context-host').ExecutionContextHost;
      /* eslint-enable @typescript-eslint/no-require-imports */
    });
    expect(attempts).toEqual([]); // nothing optional is required when the package loads

    class Handlers {
      hit() {
        return 'ok';
      }
    }
    lib.CountLimit({ limit: 1, period: 60 })(
      Handlers.prototype,
      'hit',
      Object.getOwnPropertyDescriptor(Handlers.prototype, 'hit')!,
    );
    nestCommon.Injectable()(Handlers);
    const moduleRef = await testing.Test.createTestingModule({
      imports: [lib.RateLimiterModule.forRoot({ store: new lib.MemoryStore() })],
      providers: [Handlers],
    }).compile();
    moduleRef.useLogger(false);
    await moduleRef.init();
    const guard = moduleRef.get(lib.RateLimitGuard);
    const contextOf = (type: string) => {
      const host = new ExecutionContextHost([{}, {}, {}, {}], Handlers, Handlers.prototype.hit);
      host.setType(type);
      return host;
    };

    await expect(guard.canActivate(contextOf('ws'))).resolves.toBe(true);
    for (const type of ['ws', 'graphql', 'rpc']) {
      const error = await Promise.resolve(guard.canActivate(contextOf(type))).catch(
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(nestCommon.HttpException);
      expect((error as InstanceType<typeof nestCommon.HttpException>).getStatus()).toBe(429);
    }
    // Metrics and OpenAPI are looked for once, when the module starts, and simply not used.
    expect(attempts.sort()).toEqual([
      '@nestjs/microservices',
      '@nestjs/swagger',
      '@nestjs/websockets',
      '@opentelemetry/api',
    ]);
    // The health indicator answers without terminus, in the shape terminus collects.
    await expect(
      moduleRef.get(lib.RateLimiterHealthIndicator).isHealthy('rateLimiter'),
    ).resolves.toEqual({ rateLimiter: { status: 'up', breaker: 'closed' } });
    expect(attempts).toContain('@nestjs/terminus');
    await moduleRef.close();
  });
});
