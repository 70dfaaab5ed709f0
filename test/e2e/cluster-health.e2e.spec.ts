import { Test, TestingModule } from '@nestjs/testing';
import { RateLimiterHealthIndicator, RateLimiterModule } from '../../src';
import { healthOf } from '../helpers/health-of';
import { RedisClusterHandle, startRedisCluster } from '../helpers/redis-cluster';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('RateLimiterHealthIndicator on a Redis Cluster', () => {
  let cluster: RedisClusterHandle;
  let moduleRef: TestingModule;
  let indicator: RateLimiterHealthIndicator;

  beforeAll(async () => {
    cluster = await startRedisCluster();
    moduleRef = await Test.createTestingModule({
      imports: [RateLimiterModule.forRoot({ redis: cluster.client(), storeTimeout: 1000 })],
    }).compile();
    await moduleRef.init();
    indicator = moduleRef.get(RateLimiterHealthIndicator);
  }, 60_000);
  afterAll(async () => {
    await moduleRef?.close();
    await cluster?.stop();
  });

  it('up while every master serves its slots; down, naming the master and its slots, once one is gone', async () => {
    expect(await healthOf(indicator, 'rateLimiter')).toEqual({
      rateLimiter: { status: 'up', breaker: 'closed' },
    });
    const [, gone] = cluster.masterPorts();
    await cluster.killMaster(gone);
    // Down as soon as the client has lost the node (or the survivors call the cluster failed).
    let health = await healthOf(indicator, 'rateLimiter');
    for (let i = 0; i < 100 && health.rateLimiter.status === 'up'; i++) {
      await pause(50);
      health = await healthOf(indicator, 'rateLimiter');
    }
    expect(health.rateLimiter.status).toBe('down');
    expect(health.rateLimiter.message).toMatch(
      new RegExp(`^Redis Cluster cannot decide .*slots [0-9, -]+ at 127\\.0\\.0\\.1:${gone}: `),
    );
  });
});
