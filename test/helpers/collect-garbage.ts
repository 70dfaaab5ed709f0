import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/**
 * A full garbage collection, whether or not node was started with --expose-gc: a memory bound
 * then measures what the code keeps, not the garbage the collector has not reached yet (a
 * decision that waits for a frozen Redis lives long enough to be promoted, and old space is
 * collected lazily).
 */
export function collectGarbage(): void {
  gc();
}
