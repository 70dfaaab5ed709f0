import {
  coalesced,
  perDecision,
  replyBases,
} from '../../../../../src/stores/redis/engine/coalescing';
import type { EngineEntry, FixedFields } from '../../../../../src/stores/redis/engine/entry';
import { unpackReply } from '../../../../../src/stores/redis/engine/packing';
import { DecisionGroup } from '../../../../../src/contracts/decision-group';

const fields = (argv: string[], coalescedIndex?: string): FixedFields => ({
  argv,
  limitId: `limiterCountLimit ${argv.join(' ')}`,
  coalescedIndex,
});
const limit = fields(['0', '5', '60000'], '40');
const other = fields(['0', '9', '60000'], '40');
const log: FixedFields = { ...fields(['0', '5', '60000']), limitId: 'limiterSlidingWindowLimit' };

/** An entry that records what it was answered. */
function entry(key: string, fixed = limit, time = '', group?: DecisionGroup) {
  const answers: string[] = [];
  const made: EngineEntry = {
    key,
    algorithmIndex: '1',
    time,
    fixed,
    requestArgv: [],
    patienceMs: Infinity,
    waitFromMs: 0,
    group,
    settle: (reply, base) => answers.push(reply.slice(base, base + 5).join(',')),
    withdraw: () => answers.push('withdrawn'),
    fail: (error) => answers.push(`failed: ${(error as Error).message}`),
  };
  return { made, answers };
}

describe('coalescing the entries of one engine call', () => {
  it('joins the entries of one limit on one key at one time, at the first one’s place', () => {
    const [a, b, c, d] = [entry('k'), entry('j'), entry('k'), entry('k')];
    const sent = coalesced([a.made, b.made, c.made, d.made]);
    expect(sent.map((e) => [e.key, e.algorithmIndex, e.width ?? 1])).toEqual([
      ['k', '40', 3],
      ['j', '1', 1],
    ]);
    // Each request's fields counted, then n, then the count of the limit's own fields.
    expect(sent[0].requestArgv).toEqual(['0', '0', '0', '3', '3']);
  });

  it('joins the entries of one limit whose params were made per request: the same arguments', () => {
    // A limit from each tenant's plan: every request formats its own fields.
    const [a, b, c] = [entry('k', limit), entry('k', { ...limit }), entry('k', { ...other })];
    const sent = coalesced([a.made, b.made, c.made]);
    expect(sent.map((e) => [e.key, e.algorithmIndex, e.width ?? 1])).toEqual([
      ['k', '40', 2],
      ['k', '1', 1],
    ]);
  });

  it('keeps apart other limits, other times, groups, algorithms that cannot, and what stands between', () => {
    const group = new DecisionGroup(2);
    const entries = [
      entry('k'),
      entry('k', other), // another limit on the key: the first run ends here
      entry('k'),
      entry('k', limit, '1700000000000000'), // another time
      entry('k', limit, '', group),
      entry('k', limit, '', group),
      entry('l', log),
      entry('l', log),
    ];
    const sent = coalesced(entries.map((e) => e.made));
    expect(sent.length).toBe(entries.length);
  });

  it('splits the answers, and gives a skipped or failed entry’s one field to each decision', () => {
    const [a, b, c] = [entry('k'), entry('k'), entry('j')];
    const sent = coalesced([a.made, b.made, c.made]);
    expect(replyBases(sent)).toEqual([1, 11]);
    const answered = ['1700000000', '000000', '1,4,0,0,0', '1,3,0,0,0', '0,0,5,5,0', ''].join('\0');
    const reply = unpackReply(perDecision(answered, sent), 3)!;
    sent.forEach((e, i) => e.settle(reply, replyBases(sent)[i]));
    expect([...a.answers, ...b.answers, ...c.answers]).toEqual([
      '1,4,0,0,0',
      '1,3,0,0,0',
      '0,0,5,5,0',
    ]);
    const failed = ['1700000000', '000000', '-2,WRONGTYPE', '-1,0,0,0,0', ''].join('\0');
    const expanded = unpackReply(perDecision(failed, sent), 3)!;
    expect(expanded.slice(1, 11)).toEqual([-2, 'WRONGTYPE', 0, 0, 0, -2, 'WRONGTYPE', 0, 0, 0]);
    expect(expanded.slice(11)).toEqual([-1, 0, 0, 0, 0]);
  });
});
