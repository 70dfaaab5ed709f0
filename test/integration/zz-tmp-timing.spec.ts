import { startRedisCluster } from '../helpers/redis-cluster';
it('times startup', async () => {
  for (const replicas of [0, 1] as const) {
    const t = Date.now();
    const c = await startRedisCluster({ replicas });
    const up = Date.now() - t;
    await c.stop();
    console.log(replicas, up, Date.now() - t, JSON.stringify(c.nodes));
  }
}, 60000);
