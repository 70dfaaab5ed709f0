import Redis from 'ioredis';

/** How many engine calls Redis has run (FCALL, EVAL, EVALSHA and their read-only forms), from INFO commandstats. */
export async function scriptCalls(admin: Redis): Promise<number> {
  const info = await admin.info('commandstats');
  let calls = 0;
  for (const match of info.matchAll(
    /^cmdstat_(evalsha|eval|evalsha_ro|eval_ro|fcall|fcall_ro):calls=(\d+)/gm,
  )) {
    calls += Number(match[2]);
  }
  return calls;
}

/**
 * Waits until the store's start-up check (one engine call on no decisions) has reached
 * Redis, so that it is not counted as the work of a request under test.
 */
export async function afterStartUpCheck(admin: Redis, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await scriptCalls(admin)) === 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * Every command Redis ran since the last CONFIG RESETSTAT, by name (INFO commandstats): the
 * script calls, TIME and the commands the scripts ran among them; the test's own INFO and
 * CONFIG left out.
 */
export async function commandsRun(admin: Redis): Promise<Record<string, number>> {
  const stats = await admin.info('commandstats');
  const commands: Record<string, number> = {};
  for (const [, name, calls] of stats.matchAll(/^cmdstat_([a-z|]+):calls=(\d+)/gm)) {
    if (!['info', 'config'].includes(name.split('|')[0])) commands[name] = Number(calls);
  }
  return commands;
}

/** How many commands {@link commandsRun} counts in all. */
export async function allCommandsRun(admin: Redis): Promise<number> {
  return Object.values(await commandsRun(admin)).reduce((sum, calls) => sum + calls, 0);
}
