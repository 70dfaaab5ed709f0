import { TickBatcher } from '../../../src/stores/engine/tick-batcher';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('TickBatcher', () => {
  it('hands over what one turn added as one batch, at the end of the turn', async () => {
    const batches: number[][] = [];
    const batcher = new TickBatcher<number>(100, (batch) => batches.push(batch));
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
    const batcher = new TickBatcher<number>(3, (batch) => batches.push(batch));
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
    const batcher = new TickBatcher<number>(1, (batch) => batches.push(batch));
    batcher.add(1);
    batcher.add(2);
    expect(batches).toEqual([[1], [2]]);
  });
});
