import { Logger } from '@nestjs/common';
import { countLimit } from '../../src/algorithms/count-limit/count-limit.definition';
import { countLimitParams } from '../../src/algorithms/count-limit/count-limit.model';
import { RedisStore } from '../../src';
import { DecisionGroup } from '../../src/contracts/decision-group';
import { FailurePolicyStore } from '../../src/stores/failure/failure-policy.store';
import { RedisServer, startRedisServer } from '../helpers/redis-server';
import { eventually } from '../helpers/eventually';

/**
 * What Redis skips past its deadline goes again while its callers wait (skipped-resend.ts):
 * never counted twice, never for a caller that gave up, and a group stays all or nothing.
 * Redis is frozen (SIGSTOP) so that it runs the batch late, as a starved CPU would.
 */
/** Long enough that a loaded machine's Redis answers a re-sent decision within it. */
const STORE_TIMEOUT_MS = 200;

function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}
const afterSend = () => new Promise((resolve) => setImmediate(resolve));

describe('entries Redis skipped as late', () => {
  let server: RedisServer;
  const stores: RedisStore[] = [];

  /** A store of its own per test: the breaker and the clock start fresh. */
  async function policyStore(): Promise<FailurePolicyStore> {
    const store = new RedisStore({ client: server.client() });
    stores.push(store);
    const logger = new Logger('test');
    logger.warn = () => undefined;
    const policy = new FailurePolicyStore(store, 'allow', STORE_TIMEOUT_MS, logger);
    // A first reply: the connection is up and the store's clock has a sample.
    const warmUp = await policy.decide({
      algorithm: countLimit,
      key: `warm-up:${stores.length}`,
      params: params(1),
      request: undefined,
    });
    expect(warmUp?.allowed).toBe(true);
    return policy;
  }
  const params = (limit: number) => countLimitParams({ limit, period: 60 });
  const allowed = (decisions: ({ allowed: boolean } | null)[]) =>
    decisions.map((decision) => decision?.allowed ?? 'store-error');

  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    for (const store of stores) await store.close();
    await server.stop();
  });

  it('sends a skipped group again whole: its denied member still undoes the allowed one', async () => {
    const policy = await policyStore();
    const admin = server.client();
    // B has one permit, already taken by an allowed request (no denial remembered locally).
    expect(
      (
        await policy.decide({
          algorithm: countLimit,
          key: 'resend:b',
          params: params(1),
          request: undefined,
        })
      )?.allowed,
    ).toBe(true);
    const group = new DecisionGroup(2);
    server.freeze();
    const decisions = [
      policy.decide({
        algorithm: countLimit,
        key: 'resend:a',
        params: params(3),
        request: undefined,
        label: '',
        group,
      }),
      policy.decide({
        algorithm: countLimit,
        key: 'resend:b',
        params: params(1),
        request: undefined,
        label: '',
        group,
      }),
    ];
    await afterSend();
    busy(STORE_TIMEOUT_MS + 30);
    server.thaw();
    busy(STORE_TIMEOUT_MS); // Redis answers meanwhile; the app reads it before its deadlines
    expect(allowed(await Promise.all(decisions))).toEqual([true, false]);
    // The script undid A inside the re-sent call: A kept nothing, once or twice.
    expect([...group.undone]).toEqual(['resend:a']);
    expect(await admin.exists('resend:a')).toBe(0);
    const after = await Promise.all(
      Array.from({ length: 4 }, () =>
        policy.decide({
          algorithm: countLimit,
          key: 'resend:a',
          params: params(3),
          request: undefined,
        }),
      ),
    );
    expect(allowed(after)).toEqual([true, true, true, false]);
  });

  it('counts a skipped entry once, whatever batch it goes again in', async () => {
    const policy = await policyStore();
    server.freeze();
    const late = policy.decide({
      algorithm: countLimit,
      key: 'resend:once',
      params: params(3),
      request: undefined,
    });
    await afterSend();
    busy(STORE_TIMEOUT_MS + 30);
    server.thaw();
    busy(STORE_TIMEOUT_MS); // Redis answers meanwhile; the app reads it before its deadlines
    expect(allowed([await late])).toEqual([true]);
    const after = await Promise.all(
      Array.from({ length: 3 }, () =>
        policy.decide({
          algorithm: countLimit,
          key: 'resend:once',
          params: params(3),
          request: undefined,
        }),
      ),
    );
    expect(allowed(after)).toEqual([true, true, false]);
  });

  it('never sends again what a caller gave up on: Redis resumes with nothing written', async () => {
    const policy = await policyStore();
    const store = stores[stores.length - 1];
    const admin = server.client();
    server.freeze();
    // Two: a third timeout in a row would open the breaker, and the probe below would not go.
    const decisions = Array.from({ length: 2 }, () =>
      policy.decide({
        algorithm: countLimit,
        key: 'resend:abandoned',
        params: params(3),
        request: undefined,
      }),
    );
    // The app is idle: its deadlines pass and its callers get the policy's answer first.
    expect(allowed(await Promise.all(decisions))).toEqual(['store-error', 'store-error']);
    const thawedAtMs = performance.now();
    server.thaw();
    // Redis answers "skipped"; anything sent again would leave then, on the same connection
    // as a decision sent after it, and so run before that decision.
    expect(await eventually(async () => store.lastAnswerAtMs() > thawedAtMs, true)).toBe(true);
    const probe = await policy.decide({
      algorithm: countLimit,
      key: 'resend:probe',
      params: params(3),
      request: undefined,
    });
    expect(probe?.allowed).toBe(true);
    expect(await admin.exists('resend:abandoned')).toBe(0);
  });
});
