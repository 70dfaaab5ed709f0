import { OverloadGate, OverloadTicket } from '../../../src/overload/overload-gate';
import { OverloadPriority } from '../../../src/overload/overload.options';

/** What one simulated second saw. */
export interface SimulatedSecond {
  limit: number;
  served: number;
  criticalOffered: number;
  criticalServed: number;
  /** Median latency of the requests served, in ms. */
  medianMs: number;
}

export interface Simulation {
  /** Downstream servers (K) and their service time in ms (S): capacity K / S. */
  servers: number;
  serviceMs: (nowMs: number) => number;
  /** Arrivals per second, evenly spaced; every fifth is critical, the rest sheddable. */
  offeredPerSecond: number;
  seconds: number;
  /** Moments (ms) at which the process stalls, and for how long: every timer fires late. */
  stalls?: { atMs: number; forMs: number }[];
}

/**
 * An open-loop load on a gate in front of a FIFO downstream of K servers, on a virtual clock:
 * deterministic, so a model's behaviour is asserted exactly and on no machine's speed.
 */
export function simulate(gate: OverloadGate, clock: { now: number }, sim: Simulation) {
  const seconds: SimulatedSecond[] = [];
  const queue: { done: () => void; critical: boolean; startedAt: number }[] = [];
  const finishing: { atMs: number; job: (typeof queue)[number] }[] = [];
  let busy = 0;
  const gapMs = 1000 / sim.offeredPerSecond;
  let nextArrival = 0;
  let second: SimulatedSecond & { latencies: number[] } = fresh();
  function fresh() {
    return {
      limit: 0,
      served: 0,
      criticalOffered: 0,
      criticalServed: 0,
      medianMs: 0,
      latencies: [],
    };
  }
  const startService = () => {
    while (busy < sim.servers && queue.length > 0) {
      const job = queue.shift()!;
      busy++;
      finishing.push({ atMs: clock.now + sim.serviceMs(clock.now), job });
      finishing.sort((a, b) => a.atMs - b.atMs);
    }
  };
  const endMs = sim.seconds * 1000;
  let arrivals = 0;
  while (clock.now < endMs) {
    const nextFinish = finishing[0]?.atMs ?? Infinity;
    // After a stall, Node runs the timers that are due (the downstream's replies) before it
    // reads new requests.
    const finishFirst = nextFinish <= nextArrival || nextFinish <= clock.now;
    let at = finishFirst ? Math.max(nextFinish, clock.now) : Math.max(nextArrival, clock.now);
    const stall = sim.stalls?.find((s) => at > s.atMs && at < s.atMs + s.forMs);
    if (stall) at = stall.atMs + stall.forMs;
    if (Math.floor(at / 1000) > Math.floor(clock.now / 1000)) {
      seconds.push(close(second));
      second = fresh();
    }
    clock.now = at;
    if (finishFirst) {
      const { job } = finishing.shift()!;
      busy--;
      job.done();
      second.served++;
      second.latencies.push(clock.now - job.startedAt);
      if (job.critical) second.criticalServed++;
    } else {
      const critical = arrivals++ % 5 === 0;
      const priority: OverloadPriority = critical ? 'critical' : 'sheddable';
      if (critical) second.criticalOffered++;
      const ticket = gate.admit(priority) as OverloadTicket | undefined;
      if (ticket) queue.push({ done: ticket.done, critical, startedAt: clock.now });
      nextArrival += gapMs;
    }
    startService();
    second.limit = gate.limit;
  }
  seconds.push(close(second));
  return seconds;

  function close(s: SimulatedSecond & { latencies: number[] }): SimulatedSecond {
    const sorted = s.latencies.sort((a, b) => a - b);
    const { latencies: _, ...rest } = s;
    return { ...rest, medianMs: sorted[sorted.length >> 1] ?? 0 };
  }
}
