/**
 * What an upstream's answer says about its limit, read from anything shaped like an HTTP
 * response: `status` and `headers`, where `headers` is a fetch/undici `Headers` (with `get`)
 * or a plain object (axios, got, node's `IncomingMessage`). An error that carries one
 * (`error.response`, axios's) is read the same way.
 *
 * The rules (docs/upstreams.md):
 * - 429 or 503 with `Retry-After` (delta seconds or an HTTP date): a pause until then.
 * - `RateLimit-Policy: q;w=W` (or a `w` in `RateLimit`): at most q / W calls a second.
 *   `X-RateLimit-Limit` and `RateLimit-Limit` without a window are read per second.
 * - remaining r (`RateLimit: ...;r=` or `remaining=`, `RateLimit-Remaining`,
 *   `X-RateLimit-Remaining`) with reset t: at most r calls saved up now; a 429 that says
 *   r = 0 pauses until the reset.
 * - a 429 that says none of this: throttled (the rate backs off).
 */
export interface UpstreamLesson {
  status: number;
  /** Milliseconds to pause every server for. */
  pauseMs?: number;
  /** The most calls a second the upstream says it allows. */
  ceiling?: number;
  /** Calls the upstream says are left now. */
  remaining?: number;
  /** A 429 with nothing else to go by. */
  throttled: boolean;
}

type HeaderBag = { get(name: string): string | null } | Record<string, unknown>;

interface ResponseLike {
  status: number;
  headers: HeaderBag;
}

function responseOf(value: unknown): ResponseLike | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const candidate = value as { status?: unknown; headers?: unknown; response?: unknown };
  if (typeof candidate.status === 'number' && typeof candidate.headers === 'object') {
    return candidate.headers === null ? undefined : (candidate as ResponseLike);
  }
  if (candidate.response !== value) return responseOf(candidate.response);
  return undefined;
}

function header(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') {
    const found = (headers as { get(name: string): string | null }).get(name);
    return found ?? undefined;
  }
  const bag = headers as Record<string, unknown>;
  for (const key of Object.keys(bag)) {
    if (key.toLowerCase() !== name) continue;
    const value = bag[key];
    return Array.isArray(value) ? String(value[0]) : value == null ? undefined : String(value);
  }
  return undefined;
}

const number = (text: string | undefined): number | undefined => {
  if (text === undefined) return undefined;
  const value = Number(text.trim());
  return text.trim() !== '' && Number.isFinite(value) && value >= 0 ? value : undefined;
};

/** `Retry-After`: delta seconds, or an HTTP date. */
export function retryAfterMs(text: string | undefined, nowMs = Date.now()): number | undefined {
  if (text === undefined) return undefined;
  const seconds = number(text);
  if (seconds !== undefined) return seconds * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

/** A reset: delta seconds, or (above a billion) an epoch time in seconds, as GitHub sends. */
function resetSeconds(value: number | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  return value > 1e9 ? Math.max(0, value - nowMs / 1000) : value;
}

/** The parameters of a structured field item: `"default";r=50;t=30` or `limit=100, remaining=5`. */
function fieldParams(text: string | undefined): Record<string, number> {
  const params: Record<string, number> = {};
  if (text === undefined) return params;
  const first = text.split(/,(?=\s*"|\s*[a-z-]+=)/i);
  for (const part of first) {
    for (const pair of part.split(/[;,]/)) {
      const [rawKey, rawValue] = pair.split('=');
      const value = number(rawValue);
      if (rawKey !== undefined && value !== undefined) {
        const key = rawKey.trim().toLowerCase();
        if (!(key in params)) params[key] = value;
      }
    }
  }
  return params;
}

/** The lesson of a result or an error, or undefined when it is not an HTTP answer. */
export function lessonOf(value: unknown, nowMs = Date.now()): UpstreamLesson | undefined {
  const response = responseOf(value);
  if (!response) return undefined;
  const { status, headers } = response;
  const lesson: UpstreamLesson = { status, throttled: false };
  const refused = status === 429 || status === 503;
  if (refused) lesson.pauseMs = retryAfterMs(header(headers, 'retry-after'), nowMs);
  const policy = fieldParams(header(headers, 'ratelimit-policy'));
  const current = fieldParams(header(headers, 'ratelimit'));
  const limit =
    policy.q ??
    current.limit ??
    number(header(headers, 'ratelimit-limit')) ??
    number(header(headers, 'x-ratelimit-limit'));
  const windowSeconds = policy.w ?? current.w ?? 1;
  if (limit !== undefined && windowSeconds > 0) lesson.ceiling = limit / windowSeconds;
  lesson.remaining =
    current.r ??
    current.remaining ??
    number(header(headers, 'ratelimit-remaining')) ??
    number(header(headers, 'x-ratelimit-remaining'));
  const reset = resetSeconds(
    current.t ??
      current.reset ??
      number(header(headers, 'ratelimit-reset')) ??
      number(header(headers, 'x-ratelimit-reset')),
    nowMs,
  );
  if (status === 429 && lesson.pauseMs === undefined && lesson.remaining === 0 && reset) {
    lesson.pauseMs = reset * 1000;
  }
  const said = lesson.pauseMs !== undefined || lesson.ceiling !== undefined;
  lesson.throttled = status === 429 && !said && lesson.remaining === undefined;
  return lesson;
}
