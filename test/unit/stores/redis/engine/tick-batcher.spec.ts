import { TickBatcher } from '../../../../../src/stores/redis/engine/tick-batcher';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('TickBatcher', () => {
  it('hands over what one turn added as one batch, at the end of the turn', async () => {
    const batches: number[][] = [];
    const batcher = new TickBatcher<number>(100, (batch) => void batches.push(batch));
    batcher.add(1);
    await Promise.resolve();
    batcher.add(2); // from a promise job of the same turn
    process.nextTick(() => batcher.add(3));
    expect(batches).toEqual([]);
    await nextTurn();
    expect(batches).toEqual([[1, 2, 3]]);
    batcher.add(4);
    await nextTurn();
    expect(batches).toEqual([[1, 2, 3], [4]]);
  });

  it('hands a full batch over at once, and the rest at the end of the turn', async () => {
    const batches: number[][] = [];
    const batcher = new TickBatcher<number>(3, (batch) => void batches.push(batch));
    for (let i = 1; i <= 7; i++) batcher.add(i);
    expect(batches).toEqual([
      [1, 2, 3],
      [4, 5, 6],
    ]);
    await nextTurn();
    expect(batches).toEqual([[1, 2, 3], [4, 5, 6], [7]]);
  });

  it('with a size of 1 sends each item alone and schedules nothing', () => {
    const batches: number[][] = [];
    const batcher = new TickBatcher<number>(1, (batch) => void batches.push(batch));
    batcher.add(1);
    batcher.add(2);
    expect(batches).toEqual([[1], [2]]);
  });

  it('holds what is added while maxInFlight batches are out, and sends it together when one returns', async () => {
    const batches: number[][] = [];
    const replies: (() => void)[] = [];
    const batcher = new TickBatcher<number>(
      100,
      (batch) => {
        batches.push(batch);
        return new Promise<void>((resolve) => replies.push(resolve));
      },
      1,
    );
    batcher.add(1);
    await nextTurn();
    // A lone item left at the end of its turn, without waiting for anything.
    expect(batches).toEqual([[1]]);
    batcher.add(2);
    await nextTurn();
    batcher.add(3);
    await nextTurn();
    expect(batches).toEqual([[1]]);
    replies[0]();
    await Promise.resolve();
    // Sent in the reply's own callback, before the event loop's next phase.
    expect(batches).toEqual([[1], [2, 3]]);
    batcher.add(4);
    await nextTurn();
    expect(batches).toEqual([[1], [2, 3]]);
    replies[1]();
    await Promise.resolve();
    expect(batches).toEqual([[1], [2, 3], [4]]);
  });

  it('sends a full batch even while maxInFlight batches are out', async () => {
    const batches: number[][] = [];
    const batcher = new TickBatcher<number>(
      2,
      (batch) => {
        batches.push(batch);
        return new Promise<void>(() => undefined);
      },
      1,
    );
    for (let i = 1; i <= 5; i++) batcher.add(i);
    await nextTurn();
    expect(batches).toEqual([
      [1, 2],
      [3, 4],
    ]);
  });

  it('tells onHeld once of each item whose turn ended while it had to wait', async () => {
    const held: number[][] = [];
    const batcher = new TickBatcher<number>(
      100,
      () => new Promise<void>(() => undefined),
      1,
      (queue, from) => held.push(queue.slice(from)),
    );
    batcher.add(1);
    await nextTurn();
    batcher.add(2);
    batcher.add(3);
    await nextTurn();
    batcher.add(4);
    await nextTurn();
    expect(held).toEqual([[2, 3], [4]]);
  });
});
