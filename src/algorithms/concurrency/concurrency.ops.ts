import { peekOf, resetOf } from '../state-ops/state-ops';
import { concurrency } from './concurrency.algorithm';
import { concurrencyRequest } from './concurrency.model';

/**
 * Peek and reset on a concurrency key (DESIGN §9). No refund (a slot is released) and no
 * block: slots free themselves, and a release must never be refused.
 */
export const concurrencyOps = {
  peek: peekOf(concurrency, 'zset'),
  reset: resetOf(concurrency),
  /** A peek takes a slot under an id no request has, on the snapshot that is then restored. */
  peekRequest: concurrencyRequest('acquire', 'peek'),
};
