import { clusterSlot } from '../../../../../src/stores/redis/engine/cluster-slot';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const referenceSlot: (key: string) => number = require('cluster-key-slot');

describe('clusterSlot', () => {
  it('matches the slots Redis Cluster computes, hash tags included', () => {
    expect(clusterSlot('123456789')).toBe(0x31c3 % 16384);
    expect(clusterSlot('foo')).toBe(12182);
    expect(clusterSlot('{user1000}.following')).toBe(clusterSlot('user1000'));
    expect(clusterSlot('foo{}{bar}')).toBe(clusterSlot('foo{}{bar}'));
    const keys = [
      'countLimit:~A.b',
      'rateLimit:sms:+15550001111',
      'a{b}c',
      'x{}y',
      '{{a}}',
      'é{ü}',
      '',
      'tag{open',
      '日本語',
    ];
    for (const key of keys) expect([key, clusterSlot(key)]).toEqual([key, referenceSlot(key)]);
  });
});
