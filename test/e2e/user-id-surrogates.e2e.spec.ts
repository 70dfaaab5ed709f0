import { Controller, HttpCode, Post } from '@nestjs/common';
import { CountLimit, LimitType } from '../../src';
import { useAppOnRedis } from '../helpers/app-on-redis';
import { call, PLATFORMS } from '../helpers/http';

@Controller()
class SignInController {
  @Post('sign-in')
  @HttpCode(200)
  @CountLimit({ limitType: LimitType.USER, limit: 1, period: 60 })
  signIn() {
    return 'ok';
  }
}

/** An app that keys by a name the client sends (passport-local's username, say). */
const resolveUser = (request: any) => request.body?.user as string | undefined;

describe.each(PLATFORMS)('USER ids with lone UTF-16 surrogates on %s', (platform) => {
  const env = useAppOnRedis([SignInController], platform, { resolveUser });

  it('answer 400 instead of sharing one key, and keep nothing', async () => {
    const signIn = (user: string) =>
      call(env.port, { method: 'POST', path: '/sign-in', json: { user } });
    const replies = [await signIn('\ud800'), await signIn('\udfff'), await signIn('a\udc00b')];
    expect(replies.map((reply) => reply.status)).toEqual([400, 400, 400]);
    expect(replies[0].body.message).toBe(
      'The user id has a lone UTF-16 surrogate: it cannot make a key',
    );
    expect(await env.admin.dbsize()).toBe(0);
    // Well-formed ids (an emoji is a surrogate pair) keep a limit each.
    const fine = [await signIn('😀'), await signIn('😀'), await signIn('😁')];
    expect(fine.map((reply) => reply.status)).toEqual([200, 429, 200]);
  });
});
