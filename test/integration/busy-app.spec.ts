import { Logger } from '@nestjs/common';
import Redis, { Command } from 'ioredis';
import { countLimit } from '../../src/algorithms/count-limit/count-limit.definition';
import { countLimitParams } from '../../src/algorithms/count-limit/count-limit.model';
import { Decision, DecisionCall, LimiterStore, RedisStore } from '../../src';
import { FailurePolicyStore } from '../../src/stores/failure/failure-policy.store';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

/**
 * "A busy app is not a down Redis", made deterministic: the event loop is blocked
 * (as a burst of requests blocks it) past storeTimeout while Redis answers at once. The
 * decisions are Redis's, never the failure policy's (null here: 'allow' without a store).
 */
const STORE_TIMEOUT_MS = 50;
const BUSY_MS = 150;
const params = countLimitParams({ limit: 2, period: 60 });

/** Keeps the event loop busy, as parsing a thousand requests does. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}
const afterSend = () => new Promise((resolve) => setImmediate(resolve));

/**
 * The Redis store behind synchronous work that outlasts storeTimeout (a custom store's
 * logging, or the GC pause or preempted CPU that can fall on any line): each decision
 * reaches Redis's store after its caller read its clock and set its deadline.
 */
class LateHandOver extends LimiterStore {
  constructor(private readonly redis: RedisStore) {
    super();
  }

  evaluate<P, R, S>(call: DecisionCall<P, R, S>): Promise<Decision> {
    busy(STORE_TIMEOUT_MS + 20);
    return this.redis.evaluate(call);
  }

  override lastAnswerAtMs(): number | undefined {
    return this.redis.lastAnswerAtMs();
  }
}

/**
 * A real connection whose next engine call loses the CPU between the engine reading the
 * clock and the write to the socket (`busy`, as a preempted process loses it), while Redis
 * stalls (frozen) for that long and 20 ms more.
 */
class PreemptedWrite extends Redis {
  preemptNext?: { server: RedisServer; ms: number };

  override sendCommand(command: Command, stream?: Parameters<Redis['sendCommand']>[1]): unknown {
    const preempt = this.preemptNext;
    if (preempt && /^(fcall|evalsha)$/i.test(command.name)) {
      this.preemptNext = undefined;
      preempt.server.freeze();
      busy(preempt.ms);
      setTimeout(() => preempt.server.thaw(), 20);
    }
    return super.sendCommand(command, stream);
  }
}

describe('a busy app on a healthy Redis', () => {
  let server: RedisServer;
  let store: RedisStore;
  let policyStore: FailurePolicyStore;
  let logger: Logger;
  const allowed = (decisions: ({ allowed: boolean } | null)[]) =>
    decisions.map((decision) => decision?.allowed ?? 'store-error');
  const decideFive = (key: string) =>
    Array.from({ length: 5 }, () =>
      policyStore.decide({ algorithm: countLimit, key, params, request: undefined }),
    );

  beforeAll(async () => {
    server = await startRedisServer();
    store = new RedisStore({ client: server.client() });
    logger = new Logger('test');
    logger.warn = () => undefined;
    policyStore = new FailurePolicyStore(store, 'allow', STORE_TIMEOUT_MS, logger);
    // Started as the module starts it: the engine's library is loaded before the first
    // decision, which must not pay for it within a 50 ms storeTimeout.
    await store.check();
    // A first reply: the connection is up and the store's clock has a sample.
    expect(
      allowed([
        await policyStore.decide({
          algorithm: countLimit,
          key: 'warm-up',
          params,
          request: undefined,
        }),
      ]),
    ).toEqual([true]);
  });
  afterAll(async () => {
    await store.close();
    await server.stop();
  });

  it('reads the replies waiting in the socket before it declares a timeout', async () => {
    const decisions = decideFive('countLimit:waiting');
    await afterSend();
    busy(BUSY_MS); // Redis answers meanwhile; the timer comes due before the socket is read
    expect(allowed(await Promise.all(decisions))).toEqual([true, true, false, false, false]);
  });

  it('counts the wait from when the decisions left, not from when a busy app queued them', async () => {
    const decisions = decideFive('countLimit:queued');
    busy(BUSY_MS); // before they are sent: their deadline passes while they wait in the app
    expect(allowed(await Promise.all(decisions))).toEqual([true, true, false, false, false]);
  });

  it('uses the answer of a Redis that was late too: what it skipped is sent again while its callers wait', async () => {
    // Redis runs the batch past its deadline (it was frozen, as a starved CPU freezes it) and
    // answers "skipped"; the app, busy all along, reads that answer before it judges the
    // deadline. Its callers still wait: they get Redis's decision, not the failure policy's.
    server.freeze();
    const decisions = decideFive('countLimit:late-redis');
    await afterSend();
    busy(STORE_TIMEOUT_MS + 30);
    server.thaw();
    busy(BUSY_MS - STORE_TIMEOUT_MS);
    expect(allowed(await Promise.all(decisions))).toEqual([true, true, false, false, false]);
  });

  it('gives Redis the whole wait from the send, whatever the app lost before the store', async () => {
    // The caller waits storeTimeout from the send; Redis must skip only what nobody waits
    // for. A deadline left over from the caller's own clock reading was in the past by the
    // send: Redis skipped the batch as late, and skipped it again when it went again.
    const late = new FailurePolicyStore(new LateHandOver(store), 'allow', STORE_TIMEOUT_MS, logger);
    const key = 'countLimit:late-hand-over';
    const decisions = Array.from({ length: 5 }, () =>
      late.decide({ algorithm: countLimit, key, params, request: undefined }),
    );
    expect(allowed(await Promise.all(decisions))).toEqual([true, true, false, false, false]);
  });

  it('waits from the write to the socket, not from the moment before it', async () => {
    // The CPU is lost past storeTimeout after the deadline Redis gets was set, then Redis is
    // 20 ms late: it answers "skipped" (its deadline counted from before the write), well
    // within the caller's storeTimeout from the write, and the decision goes again.
    const client = new PreemptedWrite(server.port, '127.0.0.1');
    const preempted = new RedisStore({ client });
    try {
      await preempted.check();
      const policy = new FailurePolicyStore(preempted, 'allow', STORE_TIMEOUT_MS, logger);
      client.preemptNext = { server, ms: STORE_TIMEOUT_MS + 10 };
      const key = 'countLimit:preempted-write';
      const decisions = Array.from({ length: 5 }, () =>
        policy.decide({ algorithm: countLimit, key, params, request: undefined }),
      );
      expect(allowed(await Promise.all(decisions))).toEqual([true, true, false, false, false]);
    } finally {
      server.thaw();
      await preempted.close();
      client.disconnect();
    }
  });

  it('never opens the circuit breaker on the app’s own lag', async () => {
    for (let spell = 0; spell < 5; spell++) {
      const decisions = decideFive(`countLimit:spell:${spell}`);
      if (spell % 2) await afterSend();
      busy(BUSY_MS);
      await Promise.all(decisions);
    }
    const next = decideFive('countLimit:after-spells');
    expect(allowed(await Promise.all(next))).toEqual([true, true, false, false, false]);
  });
});
