import { Decision } from '../../contracts/decision';
import { givesBack, LimiterAlgorithm, takesPermits } from '../../algorithms/limiter-algorithm';
import { MemoryStore } from '../memory.store';
import { FallbackLedger } from './fallback-ledger';

/**
 * The in-memory store of `onStoreError: 'fallback'`: it decides what the primary store
 * could not, and takes back what it handed out (see {@link FallbackLedger}).
 */
export class InsuranceStore {
  private readonly memory = new MemoryStore();
  private readonly ledger = new FallbackLedger();

  /** Memory's decision of a request the primary store could not decide; null if it fails too. */
  async decide<P, R, S>(
    algorithm: LimiterAlgorithm<P, R, S>,
    key: string,
    params: P,
    request: R,
  ): Promise<Decision | null> {
    const decision = await this.evaluate(algorithm, key, params, request);
    if (decision && takesPermits(algorithm, request)) this.ledger.took(key, request, decision);
    return decision;
  }

  /**
   * Gives back in memory a refund or a release of what memory handed out; undefined for
   * anything else, which goes to the primary store.
   */
  takeBack<P, R, S>(
    algorithm: LimiterAlgorithm<P, R, S>,
    key: string,
    params: P,
    request: R,
  ): Promise<Decision | null> | undefined {
    if (!givesBack(algorithm, request) || !this.ledger.givesBackToMemory(key, request)) {
      return undefined;
    }
    return this.evaluate(algorithm, key, params, request);
  }

  private async evaluate<P, R, S>(
    algorithm: LimiterAlgorithm<P, R, S>,
    key: string,
    params: P,
    request: R,
  ): Promise<Decision | null> {
    try {
      return await this.memory.evaluate(algorithm, key, params, request);
    } catch {
      // The insurance store failing too (a custom algorithm that throws) leaves the policy's
      // answer without a decision: never a rejection, which callers do not expect.
      return null;
    }
  }
}
