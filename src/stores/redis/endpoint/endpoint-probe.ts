import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Cluster, Redis } from 'ioredis';
import { refusesCallForm } from '../engine/call-mode';
import { FUNCTION_NOT_FOUND } from '../engine/functions';

const lua = (name: string) => readFileSync(join(__dirname, name), 'utf8');
const KEYS_OF_TWO_SLOTS = lua('probe-keys.lua');
const UNDECLARED_KEY = lua('probe-undeclared-key.lua');
const SCRIPT_FLAGS = lua('probe-script-flags.lua');

/** Two keys of two hash slots (their tags hash apart), and two of one slot. */
const TWO_SLOTS = ['{limiter-probe-1}', '{limiter-probe-2}'];
const ONE_SLOT = ['{limiter-probe}:declared', '{limiter-probe}:undeclared'];

/**
 * What an endpoint accepts of the ways the store can call it, as found at start-up and after
 * each reconnect. Each answer is undefined when the question could not be asked (the
 * connection was lost meanwhile) or does not apply (keys of two slots, on a Cluster).
 */
export interface EndpointCompatibility {
  /**
   * `FUNCTION` and `FCALL` answer (Redis >= 7; not Redis 6, KeyDB, Dragonfly, nor an ACL user
   * without one of them).
   */
  functions?: boolean;
  /** One script may declare keys of several hash slots (a standalone Redis; not a proxy). */
  crossSlotKeys?: boolean;
  /** A script may touch a key it did not declare (Redis; not Dragonfly). */
  undeclaredKeys?: boolean;
  /** `#!lua flags=...` is understood (Redis >= 7; not Redis 6, Dragonfly). */
  scriptFlags?: boolean;
  /** `CONFIG GET` answers (not on most managed services). */
  config?: boolean;
}

/**
 * True when `ask` is answered, false when an error reply refuses it (for a script, one that
 * refuses its form: an ACL that forbids EVAL says nothing of slots), else undefined.
 */
async function accepted(ask: () => Promise<unknown>, script = false): Promise<boolean | undefined> {
  try {
    await ask();
    return true;
  } catch (error) {
    const refused = (error as Error | undefined)?.name === 'ReplyError';
    return refused && (!script || refusesCallForm(error)) ? false : undefined;
  }
}

/** FCALL of a function no library has: "not found" when FCALL itself may run. */
async function fcallAnswers(client: Redis | Cluster): Promise<boolean | undefined> {
  try {
    await client.call('FCALL', 'limiter_probe_absent', '0');
    return true;
  } catch (error) {
    if (FUNCTION_NOT_FOUND.test((error as Error | undefined)?.message ?? '')) return true;
    return (error as Error | undefined)?.name === 'ReplyError' ? false : undefined;
  }
}

/** Both answers true: true; either refused: false; else undefined. */
function both(a: boolean | undefined, b: boolean | undefined): boolean | undefined {
  return a === false || b === false ? false : a && b;
}

/**
 * Asks the endpoint each question once; reads and writes no key of the limits. Without
 * `callForms` (a call mode set in the options), no script is sent: Functions and CONFIG only.
 */
export async function probeEndpoint(
  client: Redis | Cluster,
  callForms = true,
): Promise<EndpointCompatibility> {
  const cluster = client.isCluster;
  const script = (ask: () => Promise<unknown>) => (callForms ? accepted(ask, true) : undefined);
  const [stats, fcall, crossSlotKeys, undeclaredKeys, scriptFlags, config] = await Promise.all([
    accepted(() => client.call('FUNCTION', 'STATS')),
    fcallAnswers(client),
    cluster ? undefined : script(() => client.eval(KEYS_OF_TWO_SLOTS, 2, ...TWO_SLOTS)),
    script(() => client.eval(UNDECLARED_KEY, 1, ONE_SLOT[0], ONE_SLOT[1])),
    script(() => client.eval(SCRIPT_FLAGS, 0)),
    accepted(() => client.config('GET', 'maxmemory-policy')),
  ]);
  return { functions: both(stats, fcall), crossSlotKeys, undeclaredKeys, scriptFlags, config };
}

/**
 * Whether calls must go one per hash slot: on a Cluster when scripts cannot carry the keys of
 * other slots (flags and undeclared keys), elsewhere when keys of two slots are refused; undefined
 * when the probe could not tell.
 */
export function needsPerSlotCalls(
  found: EndpointCompatibility,
  cluster: boolean,
): boolean | undefined {
  if (!cluster) return found.crossSlotKeys === undefined ? undefined : !found.crossSlotKeys;
  if (found.scriptFlags === false || found.undeclaredKeys === false) return true;
  return found.scriptFlags && found.undeclaredKeys ? false : undefined;
}
