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
 * The command an engine call is, as INFO commandstats names it: FCALL of the engine library,
 * or EVALSHA where the test servers run without Functions (LIMITER_TEST_NO_FUNCTIONS).
 */
export const ENGINE_CALL = process.env.LIMITER_TEST_NO_FUNCTIONS ? 'evalsha' : 'fcall';

/**
 * Waits until start-up's script calls have reached Redis (the module's start-up decision,
 * then the store's own check: one engine call on no decisions), so that they are not counted
 * as the work of a request under test: until there are some, and no more for 200 ms.
 */
export async function afterStartUpCheck(admin: Redis, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let seen = await scriptCalls(admin);
  let quietSince = Date.now();
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    const calls = await scriptCalls(admin);
    if (calls !== seen) [seen, quietSince] = [calls, Date.now()];
    else if (seen > 0 && Date.now() - quietSince >= 200) return;
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
