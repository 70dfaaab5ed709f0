import { unpackReply } from './packing';

/**
 * How the engine calls Redis (a module option, `redisCalls`):
 * - `'cross-slot'`: one call per connection (a Cluster node) whatever slots its keys hash to:
 *   every key declared on a standalone or Sentinel Redis; on a Cluster the first key declared
 *   and the others passed as arguments, the script flagged `allow-cross-slot-keys`.
 * - `'per-slot'`: one call per hash slot, every key declared and no script flags, sent to a
 *   connection as one pipeline: what proxies in front of a cluster (Azure's Enterprise
 *   clustering, ElastiCache Serverless), and Dragonfly accept.
 * - `'auto'` (the default): `'cross-slot'`, unless the probe at start-up and after each
 *   reconnect finds that the endpoint refuses it. A call refused for its form at run time
 *   (CROSSSLOT, an undeclared key, a script flag) turns the store to `'per-slot'` and is sent
 *   again: never a store error that lets requests through.
 *
 * @publicApi
 */
export type RedisCallMode = 'auto' | 'cross-slot' | 'per-slot';

export const REDIS_CALL_MODES: readonly RedisCallMode[] = ['auto', 'cross-slot', 'per-slot'];

/**
 * Error replies that refuse the form of a script call, not what it does: keys of several
 * slots declared together, a key the script did not declare, a flag (or the shebang line that
 * carries it) the server does not know. Nothing of such a call ran.
 */
const REFUSED_FORM =
  /CROSSSLOT|hash to the same slot|undeclared key|shebang|unknown (script )?flag|invalid flag|compiling script/i;

/** Whether `error` (an error reply, or an entry's failure message) refuses a call's form. */
export function refusesCallForm(error: unknown): boolean {
  const message = error instanceof Error ? error.message : typeof error === 'string' ? error : '';
  return REFUSED_FORM.test(message);
}

/**
 * The entries of a packed engine reply (packing.ts) that failed because the endpoint
 * refused a key they touch (one passed as an argument), with the message: nothing of theirs
 * ran. Undefined when there are none.
 */
export function refusedEntries(reply: unknown, count: number): Map<number, string> | undefined {
  if (typeof reply !== 'string' || !REFUSED_FORM.test(reply)) return undefined;
  const values = unpackReply(reply, count);
  let refused: Map<number, string> | undefined;
  for (let i = 0; values && i < count; i++) {
    const message = values[2 + 5 * i];
    if (values[1 + 5 * i] === -2 && refusesCallForm(message)) {
      (refused ??= new Map()).set(i, message as string);
    }
  }
  return refused;
}
