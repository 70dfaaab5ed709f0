import { lessonOf, retryAfterMs } from '../../../src/upstream/http-answer';

const NOW = Date.UTC(2026, 0, 1, 12, 0, 0);

describe('what an answer says about the upstream limit', () => {
  it('reads a fetch Response: 429 with Retry-After in seconds is a pause', () => {
    const response = new Response('slow down', { status: 429, headers: { 'Retry-After': '5' } });
    expect(lessonOf(response, NOW)).toEqual({
      status: 429,
      pauseMs: 5000,
      ceiling: undefined,
      remaining: undefined,
      throttled: false,
    });
  });

  it('reads Retry-After as an HTTP date, on a 503 of an axios-style error', () => {
    const date = new Date(NOW + 7000).toUTCString();
    const error = Object.assign(new Error('Request failed'), {
      response: { status: 503, headers: { 'retry-after': date } },
    });
    expect(lessonOf(error, NOW)?.pauseMs).toBe(7000);
    expect(retryAfterMs('soon', NOW)).toBeUndefined();
  });

  it('a 429 with nothing else is throttled (the rate backs off); a 200 is not', () => {
    expect(lessonOf({ status: 429, headers: {} }, NOW)?.throttled).toBe(true);
    expect(lessonOf({ status: 200, headers: {} }, NOW)?.throttled).toBe(false);
    expect(lessonOf({ status: 200 }, NOW)).toBeUndefined();
    expect(lessonOf('text', NOW)).toBeUndefined();
  });

  it('X-RateLimit-Limit is a ceiling per second, with what remains', () => {
    const lesson = lessonOf(
      {
        status: 200,
        headers: {
          'X-RateLimit-Limit': '50',
          'X-RateLimit-Remaining': '3',
          'X-RateLimit-Reset': '0.2',
        },
      },
      NOW,
    );
    expect(lesson).toMatchObject({ ceiling: 50, remaining: 3, throttled: false });
  });

  it('the IETF fields: RateLimit-Policy q;w= is the ceiling, RateLimit r= what remains', () => {
    const headers = new Headers({
      'RateLimit-Policy': '"default";q=600;w=60',
      RateLimit: '"default";r=12;t=30',
    });
    expect(lessonOf({ status: 200, headers }, NOW)).toMatchObject({ ceiling: 10, remaining: 12 });
  });

  it('the older draft form limit=, remaining=, reset= also reads', () => {
    const headers = { ratelimit: 'limit=100, remaining=0, reset=4' };
    expect(lessonOf({ status: 429, headers }, NOW)).toMatchObject({
      ceiling: 100,
      remaining: 0,
      // A 429 that says nothing is left pauses until the reset.
      pauseMs: 4000,
      throttled: false,
    });
  });

  it('a reset given as an epoch time (GitHub) is read as such', () => {
    const headers = {
      'x-ratelimit-limit': '5000',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': String(NOW / 1000 + 60),
    };
    expect(lessonOf({ status: 429, headers }, NOW)?.pauseMs).toBe(60_000);
  });
});
