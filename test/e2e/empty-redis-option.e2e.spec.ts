import { Logger } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { LimiterStore, MemoryStore, RateLimiterModule, RateLimiterModuleOptions } from '../../src';

/** The module's store, or its start-up error's message; with the warnings it logged. */
async function startUp(options: RateLimiterModuleOptions) {
  const warnings: string[] = [];
  jest.spyOn(Logger.prototype, 'warn').mockImplementation((message: unknown) => {
    warnings.push(String(message));
  });
  try {
    const moduleRef = await Test.createTestingModule({
      imports: [RateLimiterModule.forRoot(options)],
    }).compile();
    const store = moduleRef.get(LimiterStore);
    await moduleRef.close();
    return { store, warnings };
  } catch (error) {
    return { error: (error as Error).message, warnings };
  } finally {
    jest.restoreAllMocks();
  }
}

const env = process.env as Record<string, string | undefined>;
/** What `redis: process.env.REDIS_ULR` (a typo of REDIS_URL) passes. */
const misspelt = env.REDIS_ULR;

describe("a redis option that is present but empty ('redis: process.env.REDIS_ULR')", () => {
  const nodeEnv = env.NODE_ENV;
  afterEach(() => {
    env.NODE_ENV = nodeEnv;
  });

  it('with NODE_ENV=production: start-up stops, naming the option', async () => {
    env.NODE_ENV = 'production';
    expect(await startUp({ redis: misspelt })).toEqual({
      error:
        "RateLimiterModule: option 'redis' is undefined with NODE_ENV=production (an " +
        'environment variable unset or misspelt?): limits would be kept in memory, each ' +
        'process apart, so N servers would allow N times each limit. Set it, or pass ' +
        "inMemory: true if one process's memory is meant",
      warnings: [],
    });
  });

  it('with NODE_ENV=production and inMemory: true: the memory store, no warning', async () => {
    env.NODE_ENV = 'production';
    const { store, warnings } = await startUp({ redis: misspelt, inMemory: true });
    expect(store).toBeInstanceOf(MemoryStore);
    expect(warnings).toEqual([]);
  });

  it('with NODE_ENV=production and no redis option at all: the memory store, one warning', async () => {
    env.NODE_ENV = 'production';
    const { store, warnings } = await startUp({});
    expect(store).toBeInstanceOf(MemoryStore);
    expect(warnings).toEqual([
      'No redis configured: rate limits are kept in memory and apply per process. Pass { redis } to share them across servers.',
    ]);
  });

  it('outside production: the memory store, and the warning names the empty option', async () => {
    env.NODE_ENV = 'development';
    const { store, warnings } = await startUp({ redis: misspelt });
    expect(store).toBeInstanceOf(MemoryStore);
    expect(warnings).toEqual([
      "Option 'redis' is undefined: rate limits are kept in memory and apply per process. Pass { redis } to share them across servers.",
    ]);
  });

  it('inMemory: true beside a redis that is set: start-up stops', async () => {
    expect((await startUp({ redis: 'redis://127.0.0.1:1', inMemory: true })).error).toBe(
      "RateLimiterModule: options 'redis' and 'inMemory' exclude each other; pass only one",
    );
  });

  it('inMemory that is not a boolean: start-up stops', async () => {
    const options = { inMemory: 'yes' } as unknown as RateLimiterModuleOptions;
    expect((await startUp(options)).error).toBe(
      "RateLimiterModule: option 'inMemory' must be a boolean, got 'yes'",
    );
  });
});
