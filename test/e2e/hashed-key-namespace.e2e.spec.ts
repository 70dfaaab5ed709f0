import { createHash } from 'node:crypto';
import { Controller, Get, HttpCode, Module, Post } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { CountLimit, MemoryStore, RateLimiterModule, SlidingWindowLimit } from '../../src';
import { useAppOnRedis } from '../helpers/app-on-redis';
import { call, PLATFORMS } from '../helpers/http';

/**
 * Two kinds on one prefix, with key forms that cannot meet (`a…` and `b…`), so start-up
 * accepts them. A value over 256 characters is hashed: its digest must not be a key the
 * other limit's client can spell, or both limits meet on one key of the wrong type.
 */
@Controller()
class SharedPrefixController {
  @Post('a')
  @HttpCode(200)
  @CountLimit({ prefix: 'shared:', key: 'a#{body.v}', limit: 1, period: 60 })
  a() {
    return 'a';
  }

  @Post('b')
  @HttpCode(200)
  @SlidingWindowLimit({ prefix: 'shared:', key: 'b#{body.h}', limit: 1, window: 60 })
  b() {
    return 'b';
  }
}

const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');

/** A long value whose key part, hashed bare, would start with `b`: `b` + the rest is the digest. */
function longValueHashingToB(): { v: string; digest: string } {
  for (let i = 0; ; i++) {
    const v = 'x'.repeat(300) + i;
    const digest = sha1('a' + v);
    if (digest.startsWith('b')) return { v, digest };
  }
}

describe.each(PLATFORMS)('hashed key parts live apart from other kinds on %s', (platform) => {
  const env = useAppOnRedis([SharedPrefixController], platform);

  it('a client sending the digest reaches its own limit, and both limits hold', async () => {
    const { v, digest } = longValueHashingToB();
    const statuses = async (path: string, json: object, times: number) => {
      const replies: number[] = [];
      for (let i = 0; i < times; i++)
        replies.push((await call(env.port, { method: 'POST', path, json })).status);
      return replies;
    };
    expect(await statuses('/a', { v }, 1)).toEqual([200]);
    expect(await statuses('/b', { h: digest.slice(1) }, 2)).toEqual([200, 429]);
    expect(await statuses('/a', { v }, 1)).toEqual([429]);
    expect(await env.admin.type(`shared:%#countLimit:${digest}`)).toBe('string');
    expect(await env.admin.type(`shared:${digest}`)).toBe('zset');
  });
});

/** A prefix that spells another kind's hashed keys: its values would be their digests. */
@Controller()
class MimicController {
  @Get('mimic')
  @SlidingWindowLimit({ prefix: 'shared:%#countLimit:', key: '#{query.h}', limit: 1, window: 60 })
  mimic() {
    return 'mimic';
  }
}

describe('the start-up check of shared keys', () => {
  it('sees the hashed keys too: a prefix that spells them fails start-up naming both', async () => {
    @Module({
      imports: [RateLimiterModule.forRoot({ store: new MemoryStore() })],
      controllers: [SharedPrefixController, MimicController],
    })
    class AppModule {}
    const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await expect(app.init()).rejects.toThrow(
      "@CountLimit on SharedPrefixController.a and @SlidingWindowLimit on MimicController.mimic can write the same Redis key ('shared:%#countLimit:*' and 'shared:%#countLimit:*', * being a request value)",
    );
    await app.close();
  });
});
