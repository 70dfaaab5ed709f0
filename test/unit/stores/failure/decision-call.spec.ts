import { Logger } from '@nestjs/common';
import { Decision, DecisionCall, LimiterStore } from '../../../../src';
import { countLimit } from '../../../../src/algorithms/count-limit/count-limit.definition';
import { countLimitParams } from '../../../../src/algorithms/count-limit/count-limit.model';
import { DecisionGroup } from '../../../../src/contracts/decision-group';
import { FailurePolicyStore } from '../../../../src/stores/failure/failure-policy.store';

const ALLOWED: Decision = {
  allowed: true,
  limit: 5,
  remaining: 4,
  resetMs: 1000,
  retryAfterMs: 0,
  waitMs: 0,
};

/** A store that sends and answers every decision, and keeps the call it was given. */
class RecordingStore extends LimiterStore {
  readonly calls: DecisionCall<unknown, unknown, unknown>[] = [];
  /** What the send hook answered: false, or how long the caller waits from the send. */
  readonly sent: (boolean | number | void)[] = [];

  evaluate<P, R, S>(call: DecisionCall<P, R, S>): Promise<Decision> {
    this.calls.push(call as DecisionCall<unknown, unknown, unknown>);
    if (call.onSent) {
      const sentAtMs = performance.now();
      const until = call.onSent(sentAtMs);
      this.sent.push(typeof until === 'number' ? Math.round(until - sentAtMs) : until);
    }
    return Promise.resolve(ALLOWED);
  }
}

describe('a decision call is one object, from the failure policy to the store', () => {
  const params = countLimitParams({ limit: 5, period: 60 });
  const quiet = new Logger('test');

  it('hands the store the call with the deadline of storeTimeout and the send hook', async () => {
    const store = new RecordingStore();
    const policy = new FailurePolicyStore(store, 'allow', 200, quiet);
    const group = new DecisionGroup(2);
    const before = performance.now();
    const decision = await policy.decide({
      algorithm: countLimit,
      key: 'k',
      params,
      request: undefined,
      group,
      label: 'C.m',
      name: 'short',
    });
    expect(decision).toEqual(ALLOWED);
    const [call] = store.calls;
    expect(Object.keys(call).sort()).toEqual([
      'algorithm',
      'deadlineMs',
      'group',
      'key',
      'onSent',
      'params',
      'partition',
      'request',
    ]);
    expect([call.algorithm, call.key, call.params, call.request, call.group]).toEqual([
      countLimit,
      'k',
      params,
      undefined,
      group,
    ]);
    expect(call.deadlineMs! - before).toBeGreaterThanOrEqual(200);
    expect(call.deadlineMs! - before).toBeLessThan(200 + (performance.now() - before) + 1);
    // The caller still waited when the store sent it, storeTimeout from that send; once
    // answered, it waits no more.
    expect(store.sent).toEqual([200]);
    expect(call.onSent!(performance.now())).toBe(false);
  });

  it("answers a direct evaluate(call), the store's public API, with the store's decision", async () => {
    const store = new RecordingStore();
    const policy = new FailurePolicyStore(store, 'deny', 200, quiet);
    const call = { algorithm: countLimit, key: 'direct', params, request: undefined };
    expect(await policy.evaluate(call)).toEqual(ALLOWED);
    expect(store.calls.map(({ key }) => key)).toEqual(['direct']);
    expect(store.sent).toEqual([200]);
  });
});
