import { RawReply } from '../../contracts/decision';
import { MemoryStep, ttlMsFromMicros } from '../limiter-algorithm';
import {
  cyclesAround,
  QuotaLimitParams,
  QuotaLimitState,
  QuotaRequest,
  REPEATED,
  SOFT_LIMIT_REACHED,
} from './quota-limit.model';

/** What the twin keeps of a charged idempotency key: as quota-limit.lua's remembered key. */
interface Remembered {
  remaining: number;
  used: number;
  expiresAtMicros: number;
}

/** The twin's state: the Lua's, and the idempotency keys its cycle remembers. */
export interface QuotaTwinState extends QuotaLimitState {
  remembered?: Map<string, Remembered>;
}

/**
 * The TypeScript twin of quota-limit.lua, on the store's clock: the cycle is the one the
 * store's `now` falls in (so a test's manual clock moves cycles), whatever the request's
 * cycles around the app's clock say.
 */
export function quotaLimitStep(
  state: QuotaTwinState | undefined,
  now: number,
  params: QuotaLimitParams,
  request: QuotaRequest,
): MemoryStep<QuotaTwinState> {
  const { limit, softLimit } = params;
  const { startMs, endMs } = cyclesAround(params, Math.floor(now / 1000));
  const reset = endMs * 1000 - now;
  const current = state && state.cycleStartMs === startMs ? state : undefined;
  let used = current?.used ?? 0;
  let credit = current?.credit ?? 0;
  const remembered = current?.remembered;
  const id = request.idempotencyKey;
  if (id !== undefined) {
    const first = remembered?.get(id);
    if (first && first.expiresAtMicros > now) {
      return unchanged(state, [1, first.remaining, reset, 0, first.used * 4 + REPEATED]);
    }
  }
  const allowance = limit + credit;
  const ttlMs = ttlMsFromMicros(reset);
  const next = (softReached: boolean): QuotaTwinState => ({
    cycleStartMs: startMs,
    used,
    credit,
    softReached,
    remembered,
  });
  const reached = current?.softReached ?? false;
  const added = request.credit ?? 0;
  if (added > 0) {
    credit += added;
    return {
      state: next(reached),
      ttlMs,
      reply: [1, allowance + added - used, reset, 0, used * 4],
    };
  }
  const { permits } = request;
  if (used + Math.max(permits, 1) > allowance) {
    const retry = permits > limit ? -1 : reset;
    return unchanged(state, [0, Math.max(0, allowance - used), reset, retry, used * 4]);
  }
  if (permits === 0) return unchanged(state, [1, allowance - used, reset, 0, used * 4]);
  used += permits;
  const reaches = softLimit > 0 && !reached && used >= softLimit;
  const after = next(reached || reaches);
  if (id !== undefined) {
    const windowMicros = Math.max(1, Math.min(ttlMs, params.idempotencyWindowMs)) * 1000;
    after.remembered = remember(
      remembered,
      id,
      {
        remaining: allowance - used,
        used,
        expiresAtMicros: now + windowMicros,
      },
      now,
    );
  }
  const flags = reaches ? SOFT_LIMIT_REACHED : 0;
  const reply: RawReply = [1, allowance - used, reset, 0, used * 4 + flags];
  if (id === undefined) return { state: after, ttlMs, reply };
  // The map outlives a group's rollback of the state (the state before may hold it too):
  // a charge given back forgets its key, as the Lua's created_key does.
  const kept = after.remembered!;
  return { state: after, ttlMs, reply, undo: () => kept.delete(id) };
}

function unchanged(state: QuotaTwinState | undefined, reply: RawReply): MemoryStep<QuotaTwinState> {
  return { state, ttlMs: null, reply };
}

/**
 * The cycle's idempotency keys with `id` added; expired ones are dropped whenever the map has
 * doubled since it was last swept, so it holds at most about twice the live keys.
 */
function remember(
  map: Map<string, Remembered> | undefined,
  id: string,
  entry: Remembered,
  now: number,
): Map<string, Remembered> {
  const remembered = map ?? new Map<string, Remembered>();
  remembered.set(id, entry);
  const swept = sweptSizes.get(remembered) ?? 0;
  if (remembered.size >= 2 * swept + 16) {
    for (const [key, { expiresAtMicros }] of remembered) {
      if (expiresAtMicros <= now) remembered.delete(key);
    }
    sweptSizes.set(remembered, remembered.size);
  }
  return remembered;
}

const sweptSizes = new WeakMap<Map<string, Remembered>, number>();
