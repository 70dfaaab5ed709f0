import Redis from 'ioredis';

/** How many scripts Redis has run (EVAL, EVALSHA and their read-only forms), from INFO commandstats. */
export async function scriptCalls(admin: Redis): Promise<number> {
  const info = await admin.info('commandstats');
  let calls = 0;
  for (const match of info.matchAll(/^cmdstat_(evalsha|eval|evalsha_ro|eval_ro):calls=(\d+)/gm)) {
    calls += Number(match[2]);
  }
  return calls;
}
