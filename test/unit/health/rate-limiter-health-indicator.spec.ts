import { Logger } from '@nestjs/common';
import type * as Root from '../../../src';
import type * as Policy from '../../../src/stores/failure/failure-policy.store';

type Lib = typeof Root & typeof Policy;

/** The package and its failure policy, from one module registry. */
function load(): Lib {
  let lib!: Lib;
  jest.isolateModules(() => {
    /* eslint-disable @typescript-eslint/no-require-imports -- a fresh module registry */
    lib = {
      ...require('../../../src'),
      ...require('../../../src/stores/failure/failure-policy.store'),
    };
    /* eslint-enable @typescript-eslint/no-require-imports */
  });
  return lib;
}

/** A store whose check fails: down, as a Redis that refuses the scripts would be. */
function downIndicator(lib: Lib) {
  class RefusingStore extends lib.MemoryStore {
    override async check(): Promise<void> {
      throw new Error('NOPERM this user has no permissions to run the evalsha command');
    }
  }
  const store = new lib.FailurePolicyStore(new RefusingStore(), 'allow', 200, new Logger('t'));
  return new lib.RateLimiterHealthIndicator(store);
}

const DOWN = {
  rateLimiter: {
    status: 'down',
    message: 'NOPERM this user has no permissions to run the evalsha command',
    breaker: 'closed',
  },
};

describe('RateLimiterHealthIndicator answers down in the form of the installed terminus', () => {
  afterEach(() => jest.dontMock('@nestjs/terminus'));

  it('terminus 11 (HealthIndicatorService): the down result is returned', async () => {
    await expect(downIndicator(load()).isHealthy('rateLimiter')).resolves.toEqual(DOWN);
  });

  it('terminus 10 and older: HealthCheckError is thrown with the result as its causes', async () => {
    class HealthCheckError extends Error {
      constructor(
        message: string,
        readonly causes: unknown,
      ) {
        super(message);
      }
    }
    jest.doMock('@nestjs/terminus', () => ({ HealthCheckError }));
    const thrown = await downIndicator(load())
      .isHealthy('rateLimiter')
      .catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(HealthCheckError);
    expect((thrown as HealthCheckError).causes).toEqual(DOWN);
    expect((thrown as HealthCheckError).message).toBe(
      'rateLimiter is down: NOPERM this user has no permissions to run the evalsha command',
    );
  });
});
