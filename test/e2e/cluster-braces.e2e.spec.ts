import { Controller, Get, INestApplication, Module } from '@nestjs/common';
import { CountLimit, RateLimiterModule } from 'nestjs-limiter';
import { call, startApp } from '../helpers/http';
import { RedisClusterHandle, startRedisCluster } from '../helpers/redis-cluster';

@Controller()
class ItemController {
  @Get('item')
  @CountLimit({ key: 'item:#{query.k}', limit: 3, period: 60 })
  item() {
    return 'ok';
  }
}

describe('braces in template values on a Redis Cluster', () => {
  let cluster: RedisClusterHandle;
  let app: INestApplication;
  let port: number;

  beforeAll(async () => {
    cluster = await startRedisCluster({ replicas: 0 });
    @Module({
      imports: [RateLimiterModule.forRoot({ redis: cluster.client() })],
      controllers: [ItemController],
    })
    class ClusterModule {}
    ({ app, port } = await startApp(ClusterModule, 'express'));
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await cluster?.stop();
  });

  it('never choose the hash slot: each key lands on the slot its whole key gives', async () => {
    const values = ['{tag}one', '{tag}two'];
    for (const value of values) {
      const reply = await call(port, { path: `/item?k=${encodeURIComponent(value)}` });
      expect(reply.status).toBe(200);
    }
    const stored = ['countLimit:item:%7Btag%7Done', 'countLimit:item:%7Btag%7Dtwo'];
    const found = await cluster.keys('countLimit:item:*');
    expect(found.map(({ key }) => key).sort()).toEqual(stored);
    const [viewPort] = found.map(({ port: nodePort }) => nodePort);
    const slotOf = async (key: string) =>
      Number(await cluster.exec(viewPort, 'CLUSTER', 'KEYSLOT', key));
    const slots = await Promise.all(stored.map(slotOf));
    // With the braces kept, both keys would hash `tag` alone and share its slot.
    expect(slots[0]).not.toBe(slots[1]);
    expect(slots).not.toContain(await slotOf('tag'));
    for (const { key, port: nodePort } of found) {
      expect(nodePort).toBe(await cluster.masterForKey(key));
    }
  });
});
