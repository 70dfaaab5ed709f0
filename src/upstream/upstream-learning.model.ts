/*
 * What the fleet learns about an upstream, and how each server's share is found
 * ==============================================================================
 *
 * Every server reports to one shared record per upstream (a Redis hash; on the memory store a
 * record in the process) a few times a second while it has calls, and reads back the budget:
 *
 *   rate     the calls a second the budget grants now, at most the configured rate R0, and at
 *            most the ceiling the upstream's headers last stated (q / w), kept for a minute.
 *   AIMD     a 429 that says nothing else cuts the rate to rate * 0.85 (never under R0 / 100),
 *            at most once per 500 ms, since the calls already sent at the old rate answer 429
 *            too; while calls succeed the rate climbs by 3 % of R0 a second of the fleet's
 *            time (each report adds the time since the last report of any server, at most
 *            1 s: an idle spell adds nothing), back toward the ceiling. The cut is small and
 *            the climb slow, so a limit that dropped silently is tracked within a few percent
 *            and probed again every few seconds rather than hammered.
 *
 * How the budget is shared between tenants and when each call starts is the book's
 * (upstream-slots.model.ts): this record only finds the rate it spends at.
 */

/** The shared record's knobs. */
export const LEARNING = {
  cutFactor: 0.85,
  cutGapMicros: 500_000,
  floorShare: 0.01,
  /** Of R0, a second. */
  climbShare: 0.03,
  ceilingMicros: 60_000_000,
} as const;

/** One server's report. */
export interface LearningReport {
  configuredRate: number;
  successes: number;
  throttles: number;
  /** The latest ceiling an answer stated (calls a second), if any. */
  ceiling?: number;
}

/** What the server reads back. */
export interface LearnedBudget {
  rate: number;
}

/** The shared record as the memory twin keeps it. */
export interface LearningRecord {
  rate?: number;
  cutAt?: number;
  reportedAt?: number;
  ceiling?: number;
  ceilingUntil?: number;
}

/** One report applied to the record at `now` (µs): the twin of upstream-learning.lua. */
export function applyReport(
  record: LearningRecord,
  now: number,
  report: LearningReport,
): LearnedBudget {
  const r0 = report.configuredRate;
  if (report.ceiling !== undefined) {
    record.ceiling = report.ceiling;
    record.ceilingUntil = now + LEARNING.ceilingMicros;
  }
  let top = r0;
  if (record.ceiling !== undefined && record.ceilingUntil! > now) {
    top = Math.min(r0, Math.max(record.ceiling, r0 * LEARNING.floorShare));
  }
  let rate = record.rate ?? r0;
  if (
    report.throttles > 0 &&
    (record.cutAt === undefined || now - record.cutAt >= LEARNING.cutGapMicros)
  ) {
    rate = Math.max(r0 * LEARNING.floorShare, rate * LEARNING.cutFactor);
    record.cutAt = now;
  } else if (report.successes > 0 && record.reportedAt !== undefined) {
    const seconds = Math.min(1_000_000, Math.max(0, now - record.reportedAt)) / 1_000_000;
    rate += r0 * LEARNING.climbShare * seconds;
  }
  record.reportedAt = now;
  rate = Math.min(rate, top);
  record.rate = rate;
  return { rate };
}
