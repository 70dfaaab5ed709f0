import { Test } from '@nestjs/testing';
import { RateLimiterModule, RateLimiterModuleOptions } from '../../src';

describe('module options are checked at start-up', () => {
  it.each([
    [
      { onStoreError: 'deny ' },
      `option 'onStoreError' must be one of 'allow', 'deny', 'fallback', got 'deny '`,
    ],
    [
      { storeTimeout: 0 },
      `option 'storeTimeout' must be a number of milliseconds > 0 and <= 2147483647, got 0`,
    ],
    [
      { storeTimeout: 2 ** 31 },
      `option 'storeTimeout' must be a number of milliseconds > 0 and <= 2147483647, got 2147483648`,
    ],
    [
      { headers: 'draft' },
      `option 'headers' must be one of 'legacy', 'ietf', 'both', false, got 'draft'`,
    ],
    [{ onDecision: 'log' }, `option 'onDecision' must be a function, got 'log'`],
    [
      { errorMessage: 429 },
      `option 'errorMessage' must be a string or a function (context, detail) => string, got 429`,
    ],
    [
      { prefix: 'api:', storeTimout: 100 },
      `unknown options 'prefix' (did you mean 'keyPrefix'?), 'storeTimout' (did you mean 'storeTimeout'?); the options are `,
    ],
  ])('%p', async (options, message) => {
    const moduleRef = Test.createTestingModule({
      imports: [RateLimiterModule.forRoot(options as RateLimiterModuleOptions)],
    });
    await expect(moduleRef.compile()).rejects.toThrow(`RateLimiterModule: ${message}`);
  });
});
