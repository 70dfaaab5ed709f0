import Redis from 'ioredis';
import { needsPerSlotCalls, probeEndpoint } from '../../src/stores/redis/endpoint/endpoint-probe';
import { RedisClusterHandle, startRedisCluster } from '../helpers/redis-cluster';
import { RedisServer, startRedisServer } from '../helpers/redis-server';
import { RespProxy, startRespProxy } from '../helpers/resp-proxy';

describe('the endpoint probe', () => {
  let redis: RedisServer;
  let proxy: RespProxy;
  beforeAll(async () => {
    redis = await startRedisServer();
    proxy = await startRespProxy(redis.port, {
      crossSlotScripts: true,
      scriptFlags: true,
      config: true,
    });
  });
  afterAll(async () => {
    await proxy.close();
    await redis.stop();
  });

  it('finds everything accepted on a Redis 7', async () => {
    expect(await probeEndpoint(redis.client())).toEqual({
      functions: true,
      crossSlotKeys: true,
      undeclaredKeys: true,
      scriptFlags: true,
      config: true,
    });
  });

  it('finds what an endpoint refuses: keys of two slots, script flags, CONFIG', async () => {
    const client = new Redis(proxy.url);
    const found = await probeEndpoint(client);
    client.disconnect();
    expect(found).toEqual({
      functions: true,
      crossSlotKeys: false,
      undeclaredKeys: true,
      scriptFlags: false,
      config: false,
    });
    expect(proxy.refused).toEqual({ crossSlotScripts: 1, scriptFlags: 1, config: 1 });
  });

  it('an ACL user that may not run EVAL leaves the script questions open', async () => {
    const admin = redis.client();
    await admin.acl('SETUSER', 'noeval', 'on', '>pw', '~*', '+@all', '-eval', '-function');
    const client = redis.client({ username: 'noeval', password: 'pw' });
    expect(await probeEndpoint(client)).toEqual({
      functions: false,
      crossSlotKeys: undefined,
      undeclaredKeys: undefined,
      scriptFlags: undefined,
      config: true,
    });
  });
});

describe('the endpoint probe on a Redis 7 Cluster', () => {
  let cluster: RedisClusterHandle;
  beforeAll(async () => {
    cluster = await startRedisCluster();
  }, 60_000);
  afterAll(() => cluster.stop());

  it('finds flags and undeclared keys of one slot accepted: one call per node', async () => {
    const found = await probeEndpoint(cluster.client());
    expect(found).toEqual({
      functions: true,
      crossSlotKeys: undefined,
      undeclaredKeys: true,
      scriptFlags: true,
      config: true,
    });
    expect(needsPerSlotCalls(found, true)).toBe(false);
    expect(needsPerSlotCalls({ ...found, scriptFlags: false }, true)).toBe(true);
    expect(needsPerSlotCalls({ ...found, undeclaredKeys: false }, true)).toBe(true);
  });
});
