import { DeadlineQueue } from '../../../src/stores/deadline-queue';

describe('DeadlineQueue', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  const queue = () => new DeadlineQueue(200, () => Date.now());

  it('expires unsettled deadlines in start order, at their own time, and never a settled one', () => {
    const deadlines = queue();
    const expired: string[] = [];
    const a = deadlines.start(() => expired.push('a'));
    jest.advanceTimersByTime(50);
    const b = deadlines.start(() => expired.push('b'));
    const c = deadlines.start(() => expired.push('c'));
    expect(b.settle()).toBe(true);

    jest.advanceTimersByTime(149);
    expect(expired).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(expired).toEqual(['a']);
    jest.advanceTimersByTime(50);
    expect(expired).toEqual(['a', 'c']);
    expect([a.settle(), b.settle(), c.settle()]).toEqual([false, false, false]);
  });

  it('keeps one timer for any number of deadlines', () => {
    const deadlines = queue();
    for (let i = 0; i < 1000; i++) deadlines.start(() => undefined).settle();
    expect(jest.getTimerCount()).toBe(1);
    jest.advanceTimersByTime(200);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('keeps an older deadline on time when an expiry starts a new one', () => {
    const deadlines = queue();
    const expired: string[] = [];
    deadlines.start(() => {
      expired.push('a');
      deadlines.start(() => expired.push('c'));
    });
    jest.advanceTimersByTime(50);
    deadlines.start(() => expired.push('b'));
    jest.advanceTimersByTime(150);
    expect(expired).toEqual(['a']);
    jest.advanceTimersByTime(50);
    expect(expired).toEqual(['a', 'b']);
    jest.advanceTimersByTime(150);
    expect(expired).toEqual(['a', 'b', 'c']);
  });

  it('expires a deadline started by another one’s expiry, with a single timer', () => {
    const deadlines = queue();
    const expired: string[] = [];
    deadlines.start(() => {
      expired.push('first');
      deadlines.start(() => expired.push('second'));
    });
    jest.advanceTimersByTime(200);
    expect([expired, jest.getTimerCount()]).toEqual([['first'], 1]);
    jest.advanceTimersByTime(200);
    expect([expired, jest.getTimerCount()]).toEqual([['first', 'second'], 0]);
  });
});
