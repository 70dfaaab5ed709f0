import { Decision } from '../../contracts/decision';
import type { DecisionCall } from '../../algorithms/decision-call';
import { givesBack, takesPermits } from '../../algorithms/engine-algorithm';
import { MemoryStore } from '../memory/memory.store';
import { FallbackLedger } from './fallback-ledger';

/** What the insurance store needs of a decision: no deadline, no group, nothing to send. */
type InsuredCall<P, R, S> = Pick<
  DecisionCall<P, R, S>,
  'algorithm' | 'key' | 'params' | 'request' | 'partition'
>;

/**
 * The in-memory store of `onStoreError: 'fallback'`: it decides what the primary store
 * could not, and takes back what it handed out (see {@link FallbackLedger}).
 */
export class InsuranceStore {
  private readonly memory = new MemoryStore();
  private readonly ledger = new FallbackLedger();

  /** Memory's decision of a request the primary store could not decide; null if it fails too. */
  async decide<P, R, S>(call: InsuredCall<P, R, S>): Promise<Decision | null> {
    const decision = await this.evaluate(call);
    if (decision && takesPermits(call.algorithm, call.request)) {
      this.ledger.took(call.key, call.request, decision);
    }
    return decision;
  }

  /**
   * Gives back in memory a refund or a release of what memory handed out; undefined for
   * anything else, which goes to the primary store.
   */
  takeBack<P, R, S>(call: InsuredCall<P, R, S>): Promise<Decision | null> | undefined {
    const { algorithm, key, request } = call;
    if (!givesBack(algorithm, request) || !this.ledger.givesBackToMemory(key, request)) {
      return undefined;
    }
    return this.evaluate(call);
  }

  private async evaluate<P, R, S>(call: InsuredCall<P, R, S>): Promise<Decision | null> {
    try {
      const { algorithm, key, params, request, partition } = call;
      return await this.memory.evaluate({ algorithm, key, params, request, partition });
    } catch {
      // The insurance store failing too (a custom algorithm that throws) leaves the policy's
      // answer without a decision: never a rejection, which callers do not expect.
      return null;
    }
  }
}
