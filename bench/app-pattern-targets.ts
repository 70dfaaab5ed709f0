// The targets of the app's pattern (app-pattern.ts, issue 40 item 4), judged from one run on
// the estimator less kind to us (stats.ts).
import { atMostJudged, compareRounds, median } from './stats';
import { us, x } from './targets';

/** Per round: µs per decision inside script calls, of the redis-server and of Node; batch sizes. */
export interface AppRow {
  scriptUs: number[];
  redisCpuUs: number[];
  nodeCpuUs: number[];
  decisionsPerCall: number[];
}

export type AppResults = Record<string, AppRow>;

/** The section's targets: [ours, against, wanted most, what, figure]. */
const TARGETS: [string, string, number, string, keyof AppRow][] = [
  [
    'counter@200',
    'counter-bare@200',
    1.25,
    'counter at 200 in flight, script µs ≤ the bare loop of its commands',
    'scriptUs',
  ],
  [
    'tokenBucket@200',
    'tokenBucket-bare@200',
    1.25,
    'token bucket at 200 in flight, script µs ≤ the bare loop of its commands',
    'scriptUs',
  ],
  [
    'counter@1',
    'rlf@1',
    1,
    'counter at one in flight, script µs ≤ rate-limiter-flexible',
    'scriptUs',
  ],
  [
    'tokenBucket@1',
    'rlf@1',
    1,
    'token bucket at one in flight, script µs ≤ rate-limiter-flexible',
    'scriptUs',
  ],
  [
    'concurrency@1',
    'rlf@1',
    1.5,
    'concurrency acquire + release at one in flight, script µs ≤ rate-limiter-flexible',
    'scriptUs',
  ],
  [
    'counter@200',
    'rlf@200',
    0.2,
    'counter at 200 in flight, Node CPU ≤ rate-limiter-flexible',
    'nodeCpuUs',
  ],
];

/** Each target's line (of ours with `suffix`): met or missed, on the estimator less kind to us. */
export function appPatternVerdicts(rows: AppResults, suffix = ''): string[] {
  return TARGETS.map(([mine, against, most, what, figure]) => {
    const ours = mine + suffix;
    // Node CPU is judged against the peer's cheaper setting.
    const peerId =
      figure === 'nodeCpuUs' &&
      median(rows['rlf+ap@200'].nodeCpuUs) < median(rows[against].nodeCpuUs)
        ? 'rlf+ap@200'
        : against;
    const ratio = atMostJudged(
      compareRounds(rows[ours][figure] as number[], rows[peerId][figure] as number[]),
    );
    const figures = `ours ${us(median(rows[ours][figure] as number[]))}, ${peerId} ${us(median(rows[peerId][figure] as number[]))}`;
    return `${ratio <= most ? 'met   ' : 'MISSED'} ${what.replace('≤', `≤ ${x(most)}`)}: ${x(ratio)} (${figures})`;
  });
}
