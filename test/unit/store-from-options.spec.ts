import { Logger } from '@nestjs/common';
import { RedisStore } from '../../src';
import { storeFromOptions } from '../../src/store-from-options';

describe('the client the module creates', () => {
  it.each([
    ['a URL', 'redis://127.0.0.1:1'],
    ['options', { host: '127.0.0.1', port: 1, lazyConnect: true }],
  ])('from %s turns TCP keepalive on and bounds retries per command', (_, redis) => {
    const store = storeFromOptions({ redis }, new Logger('test'));
    expect(store).toBeInstanceOf(RedisStore);
    const { options } = (store as RedisStore).client as unknown as {
      options: Record<string, unknown>;
    };
    expect([options.keepAlive, options.maxRetriesPerRequest]).toEqual([10_000, 1]);
    (store as RedisStore).client.disconnect();
  });

  it('keeps what the options say over the defaults', () => {
    const redis = { host: '127.0.0.1', port: 1, keepAlive: 0, lazyConnect: true };
    const store = storeFromOptions({ redis }, new Logger('test')) as RedisStore;
    const { options } = store.client as unknown as { options: Record<string, unknown> };
    expect(options.keepAlive).toBe(0);
    store.client.disconnect();
  });
});
