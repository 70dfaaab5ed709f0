/** The schemes ioredis reads from a URL: plain, and TLS. */
const SCHEMES = ['redis:', 'rediss:'];

/** What a `redis` string may be, for error messages. */
const REDIS_URL_FORMS =
  'redis://[[user]:password@]host[:port][/db], rediss://... for TLS, or a Unix socket path';

/**
 * The URL with its password replaced by `***`: error messages name the option's value, never
 * its secret.
 */
export function withoutPassword(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:@/]*:)[^@/]*@/i, '$1***@');
}

/**
 * Why a `redis` string is not one ioredis reads as meant, or undefined. ioredis takes a string
 * it cannot parse as a host name: `redis//host:6379` becomes a Unix socket path, `http://...`
 * is connected to as Redis, and `/db` that is not a number is dropped (database 0).
 */
export function redisUrlProblem(url: string): string | undefined {
  // A Unix socket path, a port, or host:port: ioredis reads each as meant.
  if (url.startsWith('/') || /^([\w.-]+:)?\d+$/.test(url)) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `it is not a Redis URL (${REDIS_URL_FORMS})`;
  }
  if (!SCHEMES.includes(parsed.protocol) || !url.includes('://')) {
    return `unknown scheme '${parsed.protocol}' (${REDIS_URL_FORMS})`;
  }
  if (parsed.hostname === '') return `no host (${REDIS_URL_FORMS})`;
  const db = parsed.pathname.replace(/^\//, '');
  if (db !== '' && !/^\d+$/.test(db)) {
    return `the database '${decodeURIComponent(db)}' is not a number (${REDIS_URL_FORMS})`;
  }
  return undefined;
}
