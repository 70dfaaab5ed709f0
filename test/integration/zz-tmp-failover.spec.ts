import { ClusterOptions } from 'ioredis';
import { RateLimiterFactory, RedisStore } from '../../src';
import { startRedisCluster } from '../helpers/redis-cluster';

const configs: Record<string, ClusterOptions> = {
  defaults: {},
  fast: { retryDelayOnFailover: 50, retryDelayOnClusterDown: 50, slotsRefreshTimeout: 500, maxRedirections: 16 },
  fewRedirections: { maxRedirections: 3 },
  idleGap: {},
};
for (const [name, options] of Object.entries(configs)) {
  it(name, async () => {
    const cluster = await startRedisCluster({ replicas: 1 });
    try {
      const client = cluster.client(options);
      const factory = new RateLimiterFactory(new RedisStore({ client }));
      const [victim] = cluster.masterPorts();
      let key = '';
      for (let i = 0; ; i++) if ((await cluster.masterForKey(`k${i}`)) === victim) { key = `k${i}`; break; }
      await factory.countLimiter({ key, limit: 1e6, period: 60 }).decide();
      await cluster.killMaster(victim);
      const t0 = Date.now();
      let done = false;
      let failoverAt = 0;
      const fo = cluster.waitForFailover(victim).then((p) => { failoverAt = Date.now() - t0; done = true; return p; });
      const events: string[] = [];
      const pending: Promise<void>[] = [];
      if (name !== 'idleGap') {
        while (!done) {
          const started = Date.now() - t0;
          pending.push(factory.countLimiter({ key, limit: 1e6, period: 60 }).decide().then(
            () => { events.push(`ok s${started} e${Date.now() - t0}`); },
            (e) => { events.push(`ERR s${started} e${Date.now() - t0} ${String(e.cause ?? e).slice(0, 80)}`); },
          ));
          await new Promise((r) => setTimeout(r, 100));
        }
      }
      await fo;
      const s = Date.now();
      await factory.countLimiter({ key: key + 'x', limit: 1e6, period: 60 }).decide().catch((e) => events.push('post ERR ' + e));
      const postMs = Date.now() - s;
      await Promise.all(pending);
      console.log(name, JSON.stringify({ failoverAt, postMs }), '\n' + events.join('\n'));
    } finally {
      await cluster.stop();
    }
  }, 60000);
}
