import { DeadlineQueue } from '../../../../src/stores/failure/deadline-queue';

describe('DeadlineQueue', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  /** The event loop's poll phase, by hand: judgements deferred until the I/O is read. */
  let waitingForIo: (() => void)[] = [];
  const readIo = () => {
    const callbacks = waitingForIo;
    waitingForIo = [];
    for (const callback of callbacks) callback();
  };
  /** Advances the clock, then lets the poll phase run, as the event loop does. */
  const advance = (ms: number) => {
    jest.advanceTimersByTime(ms);
    readIo();
  };
  const queue = () =>
    new DeadlineQueue(
      200,
      () => Date.now(),
      (callback) => waitingForIo.push(callback),
    );
  beforeEach(() => (waitingForIo = []));

  it('expires unsettled deadlines in start order, at their own time, and never a settled one', () => {
    const deadlines = queue();
    const expired: string[] = [];
    const a = deadlines.start(() => expired.push('a'));
    advance(50);
    const b = deadlines.start(() => expired.push('b'));
    const c = deadlines.start(() => expired.push('c'));
    expect(b.settle()).toBe(true);

    advance(149);
    expect(expired).toEqual([]);
    advance(1);
    expect(expired).toEqual(['a']);
    advance(50);
    expect(expired).toEqual(['a', 'c']);
    expect([a.settle(), b.settle(), c.settle()]).toEqual([false, false, false]);
  });

  it('judges a deadline only after the I/O waiting when its timer fired: an answer read then wins', () => {
    const deadlines = queue();
    const expired: string[] = [];
    const answered = deadlines.start(() => expired.push('answered'));
    const silent = deadlines.start(() => expired.push('silent'));
    // The app was busy past the deadline: the timer fires before the waiting reply is read.
    jest.advanceTimersByTime(300);
    expect(expired).toEqual([]);
    // The poll phase reads the reply of one of them, then the judgement runs.
    expect(answered.settle()).toBe(true);
    readIo();
    expect(expired).toEqual(['silent']);
    expect(silent.settle()).toBe(false);
  });

  it('expires a postponed deadline at its new time; the deadlines behind it wait for it', () => {
    const deadlines = queue();
    const expired: string[] = [];
    const late = deadlines.start(() => expired.push('late'));
    late.postpone(Date.now() + 300);
    late.postpone(Date.now() + 100); // never earlier
    deadlines.start(() => expired.push('next'));
    advance(299);
    expect(expired).toEqual([]);
    advance(1);
    expect(expired).toEqual(['late', 'next']);
  });

  it('keeps one timer for any number of deadlines', () => {
    const deadlines = queue();
    for (let i = 0; i < 1000; i++) deadlines.start(() => undefined).settle();
    expect(jest.getTimerCount()).toBe(1);
    advance(200);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('keeps an older deadline on time when an expiry starts a new one', () => {
    const deadlines = queue();
    const expired: string[] = [];
    deadlines.start(() => {
      expired.push('a');
      deadlines.start(() => expired.push('c'));
    });
    advance(50);
    deadlines.start(() => expired.push('b'));
    advance(150);
    expect(expired).toEqual(['a']);
    advance(50);
    expect(expired).toEqual(['a', 'b']);
    advance(150);
    expect(expired).toEqual(['a', 'b', 'c']);
  });

  it('expires a deadline started by another one’s expiry, with a single timer', () => {
    const deadlines = queue();
    const expired: string[] = [];
    deadlines.start(() => {
      expired.push('first');
      deadlines.start(() => expired.push('second'));
    });
    advance(200);
    expect([expired, jest.getTimerCount()]).toEqual([['first'], 1]);
    advance(200);
    expect([expired, jest.getTimerCount()]).toEqual([['first', 'second'], 0]);
  });

  it('judges after the poll phase with real timers', async () => {
    jest.useRealTimers();
    const deadlines = new DeadlineQueue(5);
    const expired = await new Promise<boolean>((resolve) => {
      const deadline = deadlines.start(() => resolve(true));
      setTimeout(() => resolve(!deadline.settle()), 50).unref();
    });
    expect(expired).toBe(true);
  });
});
